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


def test_each_page_states_its_target_torch_floor():
    """shared/rules.md "Target torch": each rule's page says which torch its remedy needs."""
    floors = {code: next(line for line in render_rule(code).splitlines() if line.startswith("- Target torch: "))
              for code in CATALOG}
    assert floors["TPL304"] == (
        "- Target torch: `torch.amp.autocast` needs torch 1.10; `torch.amp.GradScaler` needs torch 2.3; "
        "`torch.amp.custom_fwd` and `torch.amp.custom_bwd` need torch 2.4. Under a project whose "
        "`target-torch` (by default the lower bound of torch in its dependencies) is older, a finding "
        "whose remedy needs it is not reported and its fix not offered")
    assert floors["TPL206"].startswith("- Target torch: `torchrun` needs torch 1.10. Under a project")
    assert floors["TPL306"].startswith("- Target torch: `torch.set_float32_matmul_precision` needs torch 1.12. ")
    assert floors["TPL101"] == "- Target torch: no floor: reported whatever `target-torch` says"
    assert {code for code, line in floors.items() if "no floor" not in line} == {"TPL206", "TPL304", "TPL306"}
