"""RUNTIME_GUARD_REPORT / ``--report``: the guard's events as the CLI's JSON or as SARIF 2.1.0."""
import json
import os
import subprocess
import sys

from _rg_helpers import ROOT, guard_env

from torchperf_lint.findings import Finding
from torchperf_lint.frontends.output import Reported, json_report

SAMPLE = os.path.join(ROOT, "samples", "runtime_report")
TRAIN, HELPERS = os.path.join(SAMPLE, "train.py"), os.path.join(SAMPLE, "helpers.py")
CLI_FIELDS = set(json.loads(json_report([Reported("/x.py", "x.py", Finding("TPL102", 1, 0, "m"), 1)]))[0])
RUNTIME_FIELDS = {"count", "action", "rank", "runtime_fix", "steps"}


def _events(rg):
    from runtime_guard.events import Event

    return [
        Event("TPL102", f"{HELPERS}:7", "observed", "host sync: .item() x8", "sync_report", 8),
        Event("TPL201", f"{TRAIN}:24", "fixed", "DataParallel -> DDP", "ddp", 1),
        Event("TPL501", "<string>:3", "skipped", "in-memory dataset", "loader_defaults", 1),
    ]


def test_json_has_the_cli_fields_and_the_run_fields(guard):
    from runtime_guard.report_file import json_document

    items = json.loads(json_document(_events(guard), rank_=1, steps=8))
    assert [set(item) for item in items] == [CLI_FIELDS | RUNTIME_FIELDS] * 3
    by_code = {item["code"]: item for item in items}
    sync = by_code["TPL102"]
    assert sync["filename"] == HELPERS and sync["location"] == {"row": 7, "column": 1}
    assert sync["message"] == "host sync: .item() x8" and sync["fix"] is None
    assert (sync["count"], sync["action"], sync["rank"], sync["runtime_fix"], sync["steps"]) == \
        (8, "observed", 1, "sync_report", 8)
    assert sync["url"].endswith("/TPL102.md")
    # No file behind it: kept in the JSON as the guard saw it.
    assert by_code["TPL501"]["filename"] == "<string>" and by_code["TPL501"]["location"]["row"] == 3


def test_sarif_is_2_1_0_with_rules_results_and_locations(guard, monkeypatch):
    from runtime_guard.report_file import SARIF_CATEGORY, sarif_document

    monkeypatch.chdir(ROOT)
    document = json.loads(sarif_document(_events(guard), rank_=0))
    assert document["version"] == "2.1.0"
    assert document["$schema"] == "https://json.schemastore.org/sarif-2.1.0.json"
    (run,) = document["runs"]
    rule_ids = [rule["id"] for rule in run["tool"]["driver"]["rules"]]
    assert {"TPL102", "TPL201"} <= set(rule_ids)
    assert run["automationDetails"] == {"id": SARIF_CATEGORY}  # its own code scanning category
    results = run["results"]
    assert [r["ruleId"] for r in results] == ["TPL102", "TPL201"]  # "<string>" has no file: left out
    for result in results:
        assert result["level"] == "warning"
        assert rule_ids[result["ruleIndex"]] == result["ruleId"]
        assert result["message"]["text"]
        (location,) = result["locations"]
        physical = location["physicalLocation"]
        assert physical["artifactLocation"]["uriBaseId"] == "%SRCROOT%"
        assert physical["region"]["startLine"] >= 1
    sync = results[0]
    assert sync["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == \
        "samples/runtime_report/helpers.py"
    assert sync["locations"][0]["physicalLocation"]["region"]["startLine"] == 7
    assert sync["message"]["text"] == "host sync: .item() x8 (runtime_guard: observed, 8 times)"
    assert sync["properties"] == {"count": 8, "action": "observed", "rank": 0, "steps": None,
                                  "runtime_fix": "sync_report", "detail": "host sync: .item() x8"}


def test_one_file_per_rank_under_torchrun(guard):
    from runtime_guard.report_file import rank_path

    assert rank_path("out/report.json", 0, None) == "out/report.json"
    assert rank_path("out/report.json", 0, 1) == "out/report.json"
    assert rank_path("out/report.json", 1, 2) == "out/report.rank1.json"
    assert rank_path("report.sarif", 3, 4) == "report.rank3.sarif"
    assert rank_path("report", 1, 2) == "report.rank1"
    assert rank_path("runs/{rank}/guard.json", 1, 2) == "runs/1/guard.json"


def test_unwritable_path_is_one_warning_line(guard, tmp_path, monkeypatch, capsys):
    from runtime_guard import report_file

    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv(report_file.ENV, str(blocker / "report.json"))  # below a regular file
    report_file.write_at_exit(_events(guard))  # must not raise
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("runtime_guard: could not write the report to ")


def test_worker_processes_write_nothing(guard, tmp_path, monkeypatch):
    import multiprocessing

    from runtime_guard import report_file

    target = tmp_path / "report.json"
    monkeypatch.setenv(report_file.ENV, str(target))
    monkeypatch.setattr(multiprocessing, "parent_process", lambda: object())  # as in a DataLoader worker
    report_file.write_at_exit(_events(guard))
    assert not target.exists()
    monkeypatch.undo()
    monkeypatch.setenv(report_file.ENV, str(target))
    report_file.write_at_exit(_events(guard))
    assert json.loads(target.read_text())[0]["code"] == "TPL102"


def _run_sample(*args, cwd=ROOT, **env):
    proc = subprocess.run([sys.executable, *args], cwd=cwd, env=guard_env(**env),
                          capture_output=True, text=True, timeout=240)
    assert proc.returncode == 0, proc.stderr
    return proc


def test_sample_run_writes_json_and_sarif(tmp_path):
    report = tmp_path / "reports" / "run.json"  # the directory does not exist yet
    _run_sample("-m", "runtime_guard", TRAIN, "--epochs", "1", RUNTIME_GUARD_REPORT=report)
    items = json.loads(report.read_text())
    syncs = {(item["filename"], item["location"]["row"]): item for item in items
             if item["code"] == "TPL102"}
    # 256 samples / batch 32 = 8 steps: the loop's own .item() and the helper's, once each per step.
    assert set(syncs) == {(TRAIN, 36), (HELPERS, 7)}
    for item in syncs.values():
        assert (item["count"], item["action"], item["rank"], item["steps"]) == (8, "observed", 0, 8)
        assert set(item) == CLI_FIELDS | RUNTIME_FIELDS

    sarif_path = tmp_path / "run.sarif"
    _run_sample("-m", "runtime_guard", "--report", str(sarif_path), TRAIN, "--epochs", "1")
    run = json.loads(sarif_path.read_text())["runs"][0]
    uris = {(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
             r["locations"][0]["physicalLocation"]["region"]["startLine"])
            for r in run["results"] if r["ruleId"] == "TPL102"}
    assert uris == {("samples/runtime_report/train.py", 36), ("samples/runtime_report/helpers.py", 7)}


def test_import_style_report_and_unwritable_path_in_a_real_run(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    code = "import runtime_guard, torch\nfor _ in range(3):\n    torch.ones(1).item()\n"
    proc = _run_sample("-c", code, RUNTIME_GUARD_REPORT=blocker / "r.json")
    warnings = [line for line in proc.stderr.splitlines() if "could not write the report" in line]
    assert len(warnings) == 1 and str(blocker / "r.json") in warnings[0]
    good = tmp_path / "r.json"
    _run_sample("-c", code, RUNTIME_GUARD_REPORT=good)
    (item,) = [i for i in json.loads(good.read_text()) if i["code"] == "TPL102"]
    assert (item["filename"], item["location"]["row"], item["count"]) == ("<string>", 3, 3)


def test_mode_off_writes_no_report(tmp_path):
    report = tmp_path / "r.json"
    _run_sample("-c", "import runtime_guard", RUNTIME_GUARD="off", RUNTIME_GUARD_REPORT=report)
    assert not report.exists()
