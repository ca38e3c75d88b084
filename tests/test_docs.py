"""docs/rules/ is generated from the rule modules and must be up to date."""

import pathlib

import pytest

from torchperf_lint.catalog import CATALOG
from torchperf_lint.frontends.docs import render_index, render_rule

DOCS = pathlib.Path(__file__).resolve().parent.parent / "docs" / "rules"


@pytest.mark.parametrize("code", sorted(CATALOG))
def test_rule_page_is_generated_and_current(code):
    page = render_rule(code)
    assert page.startswith(f"# {code} {CATALOG[code].name}")
    assert (DOCS / f"{code}.md").read_text() == page, "run: python -m torchperf_lint.frontends.docs"


def test_index_is_current():
    assert (DOCS / "README.md").read_text() == render_index()
