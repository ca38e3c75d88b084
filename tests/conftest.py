"""Shared by every folder of tests: this folder goes on ``sys.path`` so that the tests in
tests/cli, tests/project and the rest import the shared helpers (``_diagnostics``) as the
tests here do, whichever folder a run starts from."""
import os
import sys

TESTS = os.path.dirname(os.path.abspath(__file__))
if TESTS not in sys.path:
    sys.path.insert(0, TESTS)
