"""The flake8 adapter, through flake8 itself: registration, columns, opt-in rules, noqa."""

import subprocess
import sys
import textwrap

import pytest

FLAGGED = textwrap.dedent(
    """\
    import torch
    from torch.nn import DataParallel as DP
    model = DP(net)
    x = torch.zeros(3).cuda()
    y = torch.ones(2).cuda()  # noqa: TPL101
    """
)

# A CUDA training loop without autocast (TPL305, opt-in) and a BatchNorm model's training loader
# without drop_last (TPL503, opt-in).
OPT_IN = textwrap.dedent(
    """\
    import torch
    from torch import nn
    from torch.utils.data import DataLoader
    model = nn.Sequential(nn.Linear(4, 4), nn.BatchNorm1d(4)).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    loader = DataLoader(ds, batch_size=8, shuffle=True, num_workers=2, pin_memory=True)
    for x, y in loader:
        x, y = x.cuda(non_blocking=True), y.cuda(non_blocking=True)
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
    """
)


def flake8(tmp_path, source, *args, config=None):
    path = tmp_path / "train.py"
    path.write_text(source)
    if config is not None:
        (tmp_path / "setup.cfg").write_text(config)
    result = subprocess.run(
        [sys.executable, "-m", "flake8", "--isolated" if config is None else "--no-show-source", *args, "train.py"],
        cwd=tmp_path, capture_output=True, text=True,
    )
    assert result.returncode in (0, 1), result.stderr
    return [line.split(": ", 1)[0] + " " + line.split(": ", 1)[1].split()[0] for line in result.stdout.splitlines()]


def test_plugin_is_registered():
    out = subprocess.run([sys.executable, "-m", "flake8", "--version"], capture_output=True, text=True).stdout
    assert "torchperf-lint" in out


def test_findings_with_flake8_columns_and_noqa(tmp_path):
    found = flake8(tmp_path, FLAGGED, "--select=TPL")
    # flake8 prints 1-based columns: DP( starts at 0-based column 8.
    assert found == ["train.py:3:9 TPL201", "train.py:4:5 TPL101"]


def test_opt_in_rules_off_by_default(tmp_path):
    found = flake8(tmp_path, OPT_IN, "--select=TPL")
    assert not [f for f in found if "TPL305" in f or "TPL503" in f]


def test_explicit_ignore_does_not_switch_opt_in_rules_on(tmp_path):
    found = flake8(tmp_path, OPT_IN, config="[flake8]\nignore = E501\nselect = TPL\n")
    assert not [f for f in found if "TPL305" in f or "TPL503" in f]


@pytest.mark.parametrize("code", ["TPL305", "TPL503"])
def test_extend_select_switches_an_opt_in_rule_on(tmp_path, code):
    found = flake8(tmp_path, OPT_IN, "--select=TPL", f"--extend-select={code}")
    assert [f for f in found if code in f]


def test_file_without_torch_gets_nothing(tmp_path):
    source = "import jax\nfor x in xs:\n    print(x.item())\nm = DataParallel(net)\n"
    assert flake8(tmp_path, source, "--select=TPL") == []


# flake8 in a process of its own, counting the plugin's gc.freeze calls; at the end it unfreezes
# and collects, and prints the analysis objects (ast, libcst, torchperf_lint) that a freeze kept
# alive in a dead cycle, then flake8's findings.
FREEZE_RUNNER = textwrap.dedent(
    """\
    import gc, sys
    freezes = []
    original = gc.freeze
    gc.freeze = lambda: (freezes.append(1), original())[1]
    from flake8.main.cli import main
    try:
        main(["--isolated", "-j1", "--select=TPL", "--output-file", "findings.txt", *sys.argv[1:]])
    except SystemExit:
        pass
    gc.collect()
    gc.unfreeze()
    gc.set_debug(gc.DEBUG_SAVEALL)
    gc.collect()
    kept = sorted({type(o).__module__ for o in gc.garbage
                   if type(o).__module__.startswith(("torchperf_lint", "libcst", "ast", "_ast"))})
    print(len(freezes), kept)
    """
)


def _flake8_counting_freezes(tmp_path, files):
    for name, source in files.items():
        (tmp_path / name).write_text(source)
    (tmp_path / "pyproject.toml").write_text("")
    result = subprocess.run([sys.executable, "-c", FREEZE_RUNNER, *files], cwd=tmp_path,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    findings = sorted(line.split(": ", 1)[0] for line in (tmp_path / "findings.txt").read_text().splitlines())
    return result.stdout.strip(), findings


def test_the_plugin_freezes_the_collector_once_and_keeps_no_analysis_garbage(tmp_path):
    files = {f"train_{index}.py": FLAGGED for index in range(3)}
    files["plain.py"] = "x = 1\n"
    summary, findings = _flake8_counting_freezes(tmp_path, files)
    assert summary == "1 []"
    assert findings == [f"train_{index}.py:{line}" for index in range(3) for line in ("3:9", "4:5")]


def test_the_plugin_does_not_freeze_without_a_torch_file(tmp_path):
    summary, findings = _flake8_counting_freezes(tmp_path, {"plain.py": "x = 1\n", "other.py": "y = 2\n"})
    assert summary == "0 []"
    assert findings == []
