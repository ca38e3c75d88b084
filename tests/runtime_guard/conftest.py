"""Fixtures of the runtime guard tests (helpers live in _rg_helpers.py).

Test modules are named test_rg_* so they cannot collide with the linter's tests (this directory
has no __init__.py: a package named runtime_guard here would shadow the real one).
"""
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from _rg_helpers import _guard_fixture  # noqa: E402


@pytest.fixture
def guard(monkeypatch):
    """The guard, not installed at first; uninstalled and its log cleared afterwards."""
    yield from _guard_fixture(monkeypatch)
