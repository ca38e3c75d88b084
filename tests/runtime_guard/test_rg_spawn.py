"""Every rank guarded: ranks started by ``mp.spawn`` under ``python -m runtime_guard`` install the
guard (the runner's bootstrap), print their own report and write their own rank's file, which
``torchperf-lint check --runtime-report`` adds up."""
import json
import os
import re
import socket
import sys

from _rg_helpers import SCRIPTS, guard_env, run_until_clean_shutdown


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_mp_spawn_ranks_are_guarded_and_reported(tmp_path):
    report = tmp_path / "report.json"
    def remove_stale_reports():
        for stale in tmp_path.glob("report*.json"):
            stale.unlink()

    proc = run_until_clean_shutdown(
        lambda: [sys.executable, "-m", "runtime_guard", "--report", str(report),
                 os.path.join(SCRIPTS, "spawn_train.py"), str(_free_port())],
        env=guard_env(), timeout=240, before_try=remove_stale_reports)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert sorted(re.findall(r"rank \d guard o[nf]+", proc.stdout)) == [
        "rank 0 guard on", "rank 1 guard on"]
    assert "runtime_guard report (rank 0)" in proc.stderr
    assert "runtime_guard report (rank 1)" in proc.stderr
    assert not report.exists()  # the launcher had nothing to say: the ranks' files are the report
    for rank in (0, 1):
        items = json.loads((tmp_path / f"report.rank{rank}.json").read_text())
        (anomaly,) = [i for i in items if i["code"] == "TPL603"]
        assert anomaly["rank"] == rank and anomaly["count"] == 3 and anomaly["action"] == "observed"
        assert anomaly["filename"].endswith("spawn_train.py"), anomaly
        assert anomaly["location"]["row"] == 18, anomaly
