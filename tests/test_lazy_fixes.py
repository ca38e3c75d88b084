"""Fixes are computed only when asked for: flake8 and a plain check never render one; --fix, --diff
and JSON output do, and get the same edits as before."""

import json

import pytest

from torchperf_lint.frontends import cli
from torchperf_lint import engine
from torchperf_lint.catalog import SAFE
from torchperf_lint.engine import fix_source

MANY = "import torch\ndef f(device):\n" + "".join(
    f"    a{i} = torch.zeros({i}).to(device)\n" for i in range(40)
)


@pytest.fixture
def renders(monkeypatch):
    """How many fixes were turned into text."""
    calls = []
    real_local, real_whole = engine._local_edit, engine.to_fix

    def local(*args):
        calls.append("local")
        return real_local(*args)

    def whole(*args, **kwargs):
        calls.append("whole")
        return real_whole(*args, **kwargs)

    monkeypatch.setattr(engine, "_local_edit", local)
    monkeypatch.setattr(engine, "to_fix", whole)  # the whole-unit rendering (edits.to_fix)
    return calls


def test_linting_computes_no_fix(renders):
    findings = engine.lint_source(MANY)
    assert len(findings) == 40 and all(f.fix is not None for f in findings)
    assert all(f.fix.applicability == SAFE for f in findings)
    assert renders == []  # what flake8 does: it never reads .fix


def test_edits_are_computed_once_on_demand(renders):
    findings = engine.lint_source(MANY)
    edit = findings[3].fix.edits
    assert renders == ["local"]
    assert findings[3].fix.edits is edit and renders == ["local"]
    (only,) = edit
    line = MANY.splitlines()[only.line - 1]
    assert only.line == only.end_line == 6
    assert line[:only.col] + only.content + line[only.end_col:] == "    a3 = torch.zeros(3, device=device)"


def test_fixing_many_findings_in_one_unit(renders):
    fixed, count = fix_source(MANY)
    assert count == 40 and ".to(" not in fixed and fixed.count("device=device") == 40
    # one render per fix applied (the final re-check finds nothing to fix), never the whole unit
    assert renders.count("local") == 40 and "whole" not in renders


def test_cli_check_counts_fixes_without_rendering(tmp_path, monkeypatch, capsys, renders):
    (tmp_path / "m.py").write_text(MANY)
    monkeypatch.chdir(tmp_path)
    # Reports for machines say only that a fix exists and how safe it is: nothing is rendered.
    assert cli.main(["check", "--jobs", "1", "--no-cache", "--output-format", "sarif", "m.py"]) == 1
    capsys.readouterr()
    assert renders == []
    # The text summary says what --fix would apply (follow-on fixes included), so it runs the
    # fix loop on files that have a fixable finding: one render per fix.
    assert cli.main(["check", "--jobs", "1", "--no-cache", "m.py"]) == 1
    out = capsys.readouterr().out
    assert "Found 40 findings (40 fixable with --fix)." in out
    assert len(renders) == 40
    renders.clear()
    assert cli.main(["check", "--jobs", "1", "--no-cache", "--output-format", "json", "m.py"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert len(renders) == 40
    assert all(item["fix"]["edits"][0]["content"] == ", device=" for item in report)


def test_lazy_fixes_compare_and_pickle_as_plain_fixes():
    import pickle

    first, second = engine.lint_source(MANY), engine.lint_source(MANY)
    assert first == second  # same findings, fixes included, from two analyses
    copy = pickle.loads(pickle.dumps(first[0]))
    assert copy == first[0] and copy.fix.edits == first[0].fix.edits
