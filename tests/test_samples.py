"""samples/: each pitfall script is flagged with its theme's codes; each corrected twin is clean."""

import pathlib

import pytest

from torchperf_lint.engine import lint_source

SAMPLES = pathlib.Path(__file__).resolve().parent.parent / "samples"

EXPECTED = {
    "data_movement.py": {"TPL101", "TPL102", "TPL103", "TPL104", "TPL604"},
    "multi_gpu.py": {"TPL201", "TPL202", "TPL203", "TPL204", "TPL205", "TPL206", "TPL207", "TPL605"},
    "precision.py": {"TPL301", "TPL304", "TPL401", "TPL603"},  # and TPL601, which is opt-in
    "input_pipeline.py": {"TPL501", "TPL502", "TPL602"},
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_pitfall_sample_is_flagged(name):
    codes = {f.code for f in lint_source((SAMPLES / name).read_text(), name)}
    assert codes == EXPECTED[name]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_fixed_twin_is_clean(name):
    twin = name.replace(".py", "_fixed.py")
    assert lint_source((SAMPLES / twin).read_text(), twin) == []


def test_every_sample_has_a_twin():
    pitfalls = {p.name for p in SAMPLES.glob("*.py") if not p.name.endswith("_fixed.py")}
    assert pitfalls == set(EXPECTED)


def test_opt_in_matmul_chain_in_the_precision_sample():
    from torchperf_lint.engine import default_codes

    codes = {f.code for f in lint_source((SAMPLES / "precision.py").read_text(), "precision.py",
                                         codes=[*default_codes(), "TPL601"])}
    assert "TPL601" in codes and "TPL601" not in default_codes()
