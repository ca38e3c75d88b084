"""``torchperf-lint check --runtime-report``: a run's observations next to the static findings.

Most tests use report files written here in the guard's format (the linter needs no torch); one
runs samples/runtime_report/train.py under ``python -m runtime_guard`` and merges its real report.
"""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

TRAIN = """\
import torch

from metrics import accuracy
HOOKS = {"accuracy": accuracy}  # called through a dict: no static analysis follows it

def train(model, loader, opt):
    total = 0.0
    for x, y in loader:
        out = model(x)
        loss = out.sum()
        loss.backward()
        opt.step()
        total += loss.item()
        HOOKS["accuracy"](out, y)
    return total
"""
METRICS = """\
import torch


def accuracy(out, y):
    return (out.argmax(1) == y).float().mean().item()
"""
SYNC_LINE, HELPER_LINE = 13, 5


def _item(code, path, row, count=1, action="observed", message="host sync: .item()", rank=0,
          steps=None):
    item = {"code": code, "message": message, "filename": str(path),
            "location": {"row": row, "column": 1}, "end_location": {"row": row, "column": 1},
            "fix": None, "url": "", "noqa_row": row, "count": count, "action": action,
            "rank": rank, "runtime_fix": "sync_report"}
    if steps is not None:
        item["steps"] = steps
    return item


@pytest.fixture
def sources(project):
    train = project.write("train.py", TRAIN)
    metrics = project.write("metrics.py", METRICS)
    return train, metrics


def _report(project, name, items):
    path = project.root / name
    path.write_text(json.dumps(items))
    return path


def _sync_report(project, train, metrics, name="report.json", **kw):
    return _report(project, name, [_item("TPL102", train, SYNC_LINE, count=1200, **kw),
                                   _item("TPL102", metrics, HELPER_LINE, count=1200,
                                         message="host sync: .item() x1200 (1 per step)", **kw)])


def test_static_finding_confirmed_and_hidden_sync_added(project, sources):
    train, metrics = sources
    code, out, _ = project.run("--no-cache", "train.py", "metrics.py")
    assert code == 1 and out.count("TPL102") == 1  # statically: only the loop's own .item()
    report = _sync_report(project, train, metrics)
    code, out, err = project.run("--no-cache", "--runtime-report", str(report), "train.py", "metrics.py")
    assert code == 1, err
    lines = out.splitlines()
    assert lines[0].startswith(f"metrics.py:{HELPER_LINE}:1: TPL102 host sync: .item() x1200 (1 per step)")
    assert lines[0].endswith("(seen at run time: 1,200 host syncs)")
    assert lines[1].startswith(f"train.py:{SYNC_LINE}:")
    assert lines[1].endswith("(confirmed at run time: 1,200 host syncs)")
    assert lines[2] == "Found 2 findings."


def test_every_output_format_carries_the_run(project, sources):
    train, metrics = sources
    report = str(_sync_report(project, train, metrics))
    _, out, _ = project.run("--no-cache", "--runtime-report", report, "--output-format", "json", ".")
    items = json.loads(out)
    assert [(Path(i["filename"]).name, i["location"]["row"]) for i in items] == [
        ("metrics.py", HELPER_LINE), ("train.py", SYNC_LINE)]
    assert items[0]["filename"] == str(metrics) and items[0]["noqa_row"] == HELPER_LINE
    assert "seen at run time" in items[0]["message"] and "confirmed at run time" in items[1]["message"]
    _, out, _ = project.run("--no-cache", "--runtime-report", report, "--output-format", "sarif", ".")
    results = json.loads(out)["runs"][0]["results"]
    assert [(r["ruleId"], r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
             r["locations"][0]["physicalLocation"]["region"]["startLine"]) for r in results] == [
        ("TPL102", "metrics.py", HELPER_LINE), ("TPL102", "train.py", SYNC_LINE)]
    assert "seen at run time: 1,200 host syncs" in results[0]["message"]["text"]
    _, out, _ = project.run("--no-cache", "--runtime-report", report, "--output-format", "github", ".")
    lines = out.splitlines()
    assert lines[0].startswith("::warning title=torchperf-lint (TPL102),file=metrics.py,line=5,")
    assert "(seen at run time: 1,200 host syncs)" in lines[0]
    assert "(confirmed at run time: 1,200 host syncs)" in lines[1]


def test_noqa_and_rule_selection_apply_to_the_run(project, sources):
    train, metrics = sources
    report = str(_sync_report(project, train, metrics))
    project.write("metrics.py", METRICS.replace(".item()", ".item()  # noqa: TPL102"))
    _, out, _ = project.run("--no-cache", "--runtime-report", report, ".")
    assert "metrics.py" not in out and "confirmed at run time" in out
    code, out, _ = project.run("--no-cache", "--runtime-report", report, "--ignore", "TPL102", ".")
    assert code == 0 and "TPL102" not in out
    project.write("metrics.py", METRICS)
    project.config('[tool.torchperf-lint.per-file-ignores]\n"metrics.py" = ["TPL102"]\n')
    _, out, _ = project.run("--no-cache", "--runtime-report", report, ".")
    assert "metrics.py" not in out and "train.py" in out


def test_per_rank_files_are_added_up(project, sources):
    train, metrics = sources
    for rank in (0, 1):
        _sync_report(project, train, metrics, name=f"report.rank{rank}.json", rank=rank)
    _, out, _ = project.run("--no-cache", "--runtime-report", "report.json", ".")
    assert "(seen at run time: 2,400 host syncs over 2 ranks)" in out
    assert "(confirmed at run time: 2,400 host syncs over 2 ranks)" in out


def test_skipped_fixes_annotate_but_never_add_findings(project, sources):
    train, metrics = sources
    loader = project.write("data.py", """\
        import torch
        from torch.utils.data import DataLoader

        loader = DataLoader(ImageFolder("data"), batch_size=2)
        """)
    code, out, _ = project.run("--no-cache", "data.py")
    assert "data.py:4:" in out and "TPL501" in out
    report = _report(project, "r.json", [
        _item("TPL501", loader, 4, action="skipped", message="in-memory dataset: workers cost more"),
        _item("TPL501", train, 8, action="skipped", message="nothing to do here"),
    ])
    _, out, _ = project.run("--no-cache", "--runtime-report", str(report), ".")
    assert "(at run time: skipped 1 time: in-memory dataset: workers cost more)" in out
    assert "confirmed" not in out and "train.py:8" not in out and "nothing to do" not in out
    # The guard's action words may carry their reason ("left alone: <why>").
    report = _report(project, "r2.json", [
        _item("TPL501", loader, 4, action="left alone: no accelerator", message="kept as written")])
    _, out, _ = project.run("--no-cache", "--runtime-report", str(report), ".")
    assert "(at run time: left alone 1 time (no accelerator): kept as written)" in out


def test_observations_outside_the_checked_files_are_ignored(project, sources, tmp_path):
    train, metrics = sources
    report = _report(project, "r.json", [
        _item("TPL102", tmp_path / "site-packages" / "lib.py", 3),
        _item("TPL102", "<string>", 3),
        _item("TPL102", metrics, HELPER_LINE),
    ])
    _, out, _ = project.run("--no-cache", "--runtime-report", str(report), "train.py")
    assert "metrics.py" not in out and "lib.py" not in out and "<string>" not in out
    assert "confirmed" not in out  # nothing seen in train.py


def test_sarif_report_resolves_relative_paths(project, sources):
    train, metrics = sources
    document = {"version": "2.1.0", "runs": [{
        "tool": {"driver": {"name": "torchperf-lint"}},
        # The run happened in a checkout that does not exist here (CI): paths are taken relative
        # to the current directory.
        "originalUriBaseIds": {"%SRCROOT%": {"uri": "file:///nonexistent/checkout/"}},
        "results": [{
            "ruleId": "TPL102", "level": "warning", "message": {"text": "x (runtime_guard: observed)"},
            "locations": [{"physicalLocation": {
                "artifactLocation": {"uri": "metrics.py", "uriBaseId": "%SRCROOT%"},
                "region": {"startLine": HELPER_LINE}}}],
            "properties": {"count": 7, "action": "observed", "rank": 0, "detail": "host sync: .item() x7"},
        }],
    }]}
    report = _report(project, "run.sarif", document)
    _, out, _ = project.run("--no-cache", "--runtime-report", str(report), ".")
    assert f"metrics.py:{HELPER_LINE}:1: TPL102 host sync: .item() x7 (seen at run time: 7 host syncs)" in out


def test_bad_report_is_a_usage_error(project, sources):
    code, _, err = project.run("--runtime-report", "missing.json", ".")
    assert code == 2 and "missing.json: no such file" in err
    project.write("bad.json", "{not json")
    code, _, err = project.run("--runtime-report", "bad.json", ".")
    assert code == 2 and err == ("torchperf-lint: error: --runtime-report bad.json: line 1: not valid JSON: "
                                 "Expecting property name enclosed in double quotes (column 2)\n")
    project.write("odd.json", '{"a": 1}')
    code, _, err = project.run("--runtime-report", "odd.json", ".")
    assert code == 2 and "neither runtime_guard's JSON list nor SARIF" in err


def test_fix_mode_leaves_the_run_out(project, sources):
    train, metrics = sources
    report = str(_sync_report(project, train, metrics))
    _, out, err = project.run("--no-cache", "--fix", "--runtime-report", report, ".")
    assert "only used when checking" in err and "run time" not in out


def test_real_run_of_the_sample_merged(project, tmp_path):
    pytest.importorskip("torch")
    sample = REPO / "samples" / "runtime_report"
    report = tmp_path / "report.json"
    env = {k: v for k, v in os.environ.items() if not k.startswith("RUNTIME_GUARD")}
    env.update(PYTHONPATH=str(REPO), PYTHONWARNINGS="ignore", RUNTIME_GUARD_REPORT=str(report))
    proc = subprocess.run([sys.executable, "-m", "runtime_guard", str(sample / "train.py"), "--epochs", "2"],
                          env=env, cwd=tmp_path, capture_output=True, text=True, timeout=240)
    assert proc.returncode == 0, proc.stderr
    code, out, _ = project.run("--no-cache", "--runtime-report", str(report), str(sample))
    lines = {line.split(": ", 1)[0]: line for line in out.splitlines() if "TPL102" in line}
    helper = str(sample / "helpers.py") + ":7:1"
    loop = str(sample / "train.py") + ":36:24"
    assert set(lines) == {helper, loop}
    # 256 samples, batch 32, 2 epochs: 16 steps, one sync per step at each line.
    assert lines[helper].endswith("(seen at run time: 16 host syncs)")
    assert lines[loop].endswith("(confirmed at run time: 16 host syncs)")


def test_cached_results_are_merged_and_the_cache_stays_clean(project, sources):
    train, metrics = sources
    report = str(_sync_report(project, train, metrics))
    first = project.run("--runtime-report", report, ".")
    again = project.run("--runtime-report", report, ".")  # now from the cache
    assert first == again and "seen at run time" in first[1]
    _, plain, _ = project.run(".")
    assert "run time" not in plain and plain.count("TPL102") == 1


def test_run_only_syncs_need_the_rate_of_a_step(project, sources):
    """A sync the linter did not see becomes a finding only when it happened at (nearly) every
    optimizer step; once per epoch, every N steps or in a run without steps it does not."""
    train, metrics = sources

    def merged(count, steps):
        report = _report(project, "rate.json", [_item("TPL102", metrics, HELPER_LINE, count=count,
                                                      message="host sync: .item()", steps=steps),
                                                _item("TPL102", train, SYNC_LINE, count=count,
                                                      steps=steps)])
        return project.run("--no-cache", "--runtime-report", str(report), ".")[1]

    assert f"metrics.py:{HELPER_LINE}:1: TPL102" in merged(1200, 1200)
    assert f"metrics.py:{HELPER_LINE}:1: TPL102" in merged(4800, 1200)  # gradient accumulation
    for count, steps in ((3, 1200), (12, 1200), (600, 1200), (5, 0)):
        out = merged(count, steps)
        assert "metrics.py" not in out, (count, steps)
        # The static finding still carries what the run counted there.
        assert f"(confirmed at run time: {count:,} host sync" in out
