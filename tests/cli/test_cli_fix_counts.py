"""check, --diff and --fix agree on how many fixes there are, and a fix run lists every change it
makes, the ones that a first fix made possible included."""

import ast

# pin_memory=True (TPL502) makes the copy in the loop a TPL104 finding, fixed in the second round.
FOLLOW_ON = """\
import torch
from torch.utils.data import DataLoader

loader = DataLoader(ds, batch_size=4, num_workers=2)
for x in loader:
    x = x.cuda()
"""

LONG_LINE = """\
import torch


def make(device):
    if True:
        mask = torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]).to(device)
    return mask
"""


def test_check_diff_and_fix_give_one_count(project):
    path = project.write("a.py", FOLLOW_ON)
    for _ in range(2):  # the second run may come from the cache: the same count
        code, out, _ = project.run()
        assert code == 1
        assert "Found 1 finding (1 fixable with --fix, which then fixes 1 more)." in out
    code, out, err = project.run("--diff")
    assert code == 1 and path.read_text() == FOLLOW_ON
    assert "+loader = DataLoader(ds, batch_size=4, num_workers=2, pin_memory=True)" in out
    assert "+    x = x.cuda(non_blocking=True)" in out
    assert "Would fix 2 findings." in err
    assert "a.py: TPL104 add non_blocking=True (made possible by an earlier fix)" in err
    code, out, _ = project.run("--fix")
    assert code == 0
    assert "Fixed 2 findings." in out
    assert "a.py: TPL502 pass pin_memory=True\n" in out
    assert "a.py: TPL104 add non_blocking=True (made possible by an earlier fix)" in out
    fixed = path.read_text()
    ast.parse(fixed)
    assert "x = x.cuda(non_blocking=True)" in fixed
    code, out, _ = project.run("--fix")
    assert code == 0 and "Fixed" not in out and path.read_text() == fixed


def test_counts_agree_without_follow_on_fixes(project):
    project.write("a.py", "import torch\nx = torch.zeros(3).to(device)\ny = torch.ones(2).cuda()\n")
    assert "Found 2 findings (2 fixable with --fix)." in project.run()[1]
    assert "Would fix 2 findings." in project.run("--diff")[2]
    out = project.run("--fix")[1]
    assert "Fixed 2 findings." in out and "a.py: TPL101 create the tensor with device=device\n" in out


def test_line_length_from_the_projects_flake8_settings(project):
    path = project.write("a.py", LONG_LINE)
    project.run("--fix")
    assert "        mask = torch.tensor(\n            [1.0," in path.read_text()  # 88: wrapped
    path.write_text(LONG_LINE)
    (project.root / "setup.cfg").write_text("[flake8]\nmax-line-length = 120\n")
    project.run("--fix")
    assert "mask = torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0], device=device)\n" in path.read_text()


def test_cached_results_keep_the_count(project, monkeypatch):
    from torchperf_lint import engine

    project.write("a.py", FOLLOW_ON)
    project.run("--output-format", "json")  # cached without counting what --fix would apply
    assert "(1 fixable with --fix, which then fixes 1 more)" in project.run()[1]
    calls = []
    real = engine.lint_source
    monkeypatch.setattr(engine, "lint_source", lambda *a, **k: calls.append(1) or real(*a, **k))
    assert "(1 fixable with --fix, which then fixes 1 more)" in project.run()[1]
    assert calls == []  # the count came from the cache
