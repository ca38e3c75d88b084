"""Without a [tool.torchperf-lint] table, the CLI reads flake8's configuration (setup.cfg, tox.ini,
.flake8): what it says about TPL codes, exclusion and per-file-ignores, as the plugin would see it."""

import textwrap

import pytest
from _cli_helpers import DATA_PARALLEL

from torchperf_lint.frontends.config import load_config

LOOP = """\
import torch

for x in loader:
    loss = model(x)
    print(loss.item())
"""
BATCHNORM = """\
import torch

model = torch.nn.Sequential(torch.nn.BatchNorm1d(4))
loader = torch.utils.data.DataLoader(data, batch_size=8, shuffle=True, num_workers=2, pin_memory=True)
for x in loader:
    model(x)
"""


@pytest.fixture
def flake8_project(project):
    (project.root / "pyproject.toml").unlink()  # no table of ours: flake8's settings apply
    return project


@pytest.mark.parametrize("name", ["setup.cfg", "tox.ini", ".flake8"])
def test_flake8_settings_are_read(flake8_project, name):
    p = flake8_project
    (p.root / name).write_text(textwrap.dedent("""\
        [flake8]
        max-line-length = 100
        select = E,W,F
        extend-ignore = E203, TPL102
        per-file-ignores =
            legacy/*: TPL201, E501
        extend-exclude = generated
    """))
    p.write("a.py", DATA_PARALLEL + LOOP)
    p.write("legacy/b.py", DATA_PARALLEL)
    p.write("generated/c.py", DATA_PARALLEL)
    code, out, _ = p.run("--no-cache", ".")
    assert code == 1
    assert "a.py:3:9: TPL201" in out
    assert "TPL102" not in out  # extend-ignore
    assert "legacy/b.py" not in out  # per-file-ignores
    assert "generated/c.py" not in out  # extend-exclude
    config = load_config(p.root)
    assert config.line_length == 100 and config.path.name == name


def test_opt_in_rules_by_exact_code_only(flake8_project):
    p = flake8_project
    p.write("m.py", BATCHNORM)
    (p.root / ".flake8").write_text("[flake8]\nextend-select = TPL\n")
    assert "TPL503" not in p.run("--no-cache")[1]
    (p.root / ".flake8").write_text("[flake8]\nextend_select = TPL, TPL503\nignore = E501\n")
    assert "TPL503" in p.run("--no-cache")[1]


def test_select_naming_tpl_codes_restricts(flake8_project):
    p = flake8_project
    p.write("a.py", DATA_PARALLEL + LOOP)
    (p.root / "setup.cfg").write_text("[flake8]\nselect = E, TPL1\n")
    code, out, _ = p.run("--no-cache")
    assert "TPL102" in out and "TPL201" not in out


def test_our_table_wins_over_flake8(project):
    project.config('ignore = ["TPL201"]\n')
    (project.root / "setup.cfg").write_text("[flake8]\nextend-ignore = TPL102\n")
    project.write("a.py", DATA_PARALLEL + LOOP)
    code, out, _ = project.run("--no-cache")
    assert "TPL102" in out and "TPL201" not in out


def test_section_without_flake8_is_not_read(flake8_project):
    p = flake8_project
    (p.root / "setup.cfg").write_text("[metadata]\nname = x\n[tool:pytest]\naddopts = -q\n")
    p.write("a.py", DATA_PARALLEL)
    assert "TPL201" in p.run("--no-cache")[1]
    assert load_config(p.root).path is None
