"""Never lose a byte: every file the CLI writes (fixed sources, the cache, ``-o`` reports) is either
its old bytes or its new bytes, whatever goes wrong: a failing write, a file the user saves while
``--fix`` runs, Ctrl-C, read-only files and folders."""

import os
import resource
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from _cli_helpers import FIXABLE
from torchperf_lint.frontends import runner

CLI = "import sys; from torchperf_lint.frontends.cli import main; sys.exit(main(sys.argv[1:]))"
FIXED = FIXABLE.replace(
    "torch.arange(6, dtype=torch.float32).to(device)", "torch.arange(6, dtype=torch.float32, device=device)"
).replace(
    "torch.full((2, 3), 7.0).to(device, non_blocking=True)", "torch.full((2, 3), 7.0, device=device)"
).replace(
    "torch.tensor([[1.0, 2.0], [3.0, 4.0]]).to(device=device)", "torch.tensor([[1.0, 2.0], [3.0, 4.0]], device=device)"
)
REPORTED = [
    "a.py:4:9: TPL101 [*] tensor created on the CPU then moved with `.to(device)`: pass `device=device` "
    "to `torch.arange` instead (one allocation, no copy)",
]


def _project(tmp_path: Path, files: int = 1) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "pyproject.toml").write_text("[tool.torchperf-lint]\n")
    for index in range(files):
        (root / ("a.py" if files == 1 else f"m{index:03}.py")).write_text(FIXABLE)
    return root


def _cli(root: Path, *args: str, file_size_limit=None, **popen):
    def limit():
        if file_size_limit is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (file_size_limit, file_size_limit))

    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run([sys.executable, "-c", CLI, "check", *args], cwd=root, capture_output=True,
                          text=True, preexec_fn=limit, env=env, **popen)


def test_fixed_text_matches_the_fix_run(tmp_path):
    # The expected text of the other tests is what --fix really writes.
    root = _project(tmp_path)
    done = _cli(root, "--fix", "--no-cache", "-j", "1")
    assert done.returncode == 0, done.stderr
    assert (root / "a.py").read_text() == FIXED


def test_a_failing_write_leaves_the_file_and_keeps_the_findings(tmp_path):
    # The file-size limit lets half the fixed text through, then the write fails (EFBIG; Python
    # ignores SIGXFSZ): before, the file was left truncated and the report said "Fixed".
    root = _project(tmp_path)
    original = (root / "a.py").read_bytes()
    done = _cli(root, "--fix", "--no-cache", "-j", "1", file_size_limit=len(FIXED) // 2)
    assert (root / "a.py").read_bytes() == original
    assert sorted(p.name for p in root.iterdir()) == ["a.py", "pyproject.toml"]  # no temporary file left
    assert done.returncode == 2
    assert done.stderr == ("torchperf-lint: error: a.py: could not write the fixes: File too large; "
                           "the file is unchanged\n")
    assert "Fixed" not in done.stdout
    lines = done.stdout.splitlines()
    assert [line.split(" ", 2)[:2] for line in lines[:4]] == [
        ["a.py:1:1:", "TPL900"], ["a.py:4:9:", "TPL101"], ["a.py:5:9:", "TPL101"], ["a.py:6:9:", "TPL101"]]
    assert lines[0] == ("a.py:1:1: TPL900 torchperf-lint could not write the fixes: File too large; "
                        "the file is unchanged")
    assert lines[-1] == "Found 4 findings (3 fixable with --fix)."


def test_a_cache_that_cannot_be_written_leaves_no_temporary_file(tmp_path):
    root = _project(tmp_path, files=30)
    done = _cli(root, "-j", "1", "--cache-dir", str(root / "cache"), file_size_limit=200)
    assert done.returncode == 1, done.stderr
    # The finding cache and the project index's entries (cache/index/...) alike: no temporary file.
    assert {p.name for p in (root / "cache").iterdir()} <= {".gitignore", "index"}
    left = [p for p in (root / "cache").rglob("*") if p.is_file() and p.name != ".gitignore"]
    assert all(p.suffix == ".marshal" and not p.name.startswith(".") for p in left), left


def test_a_file_saved_during_the_fix_run_keeps_the_users_edit(project, monkeypatch):
    path = project.write("a.py", FIXABLE)
    saved = FIXABLE + "\nprint('saved by the user')\n"
    real_fix_text = runner.fix_text

    def fix_then_user_saves(*args, **kwargs):
        outcome = real_fix_text(*args, **kwargs)
        path.write_text(saved)  # the editor writes between our read and our write
        return outcome

    monkeypatch.setattr(runner, "fix_text", fix_then_user_saves)
    code, out, err = project.run("--fix", "--no-cache")
    assert path.read_text() == saved
    assert code == 2
    assert err == ("torchperf-lint: error: a.py: could not write the fixes: the file changed on disk since it "
                   "was read; it was left as it is; the file is unchanged\n")
    assert "Fixed" not in out and out.count("TPL101") == 3
    assert sorted(p.name for p in path.parent.iterdir()) == ["a.py", "pyproject.toml"]


def test_a_read_only_file_is_not_rewritten(project):
    path = project.write("a.py", FIXABLE)
    path.chmod(0o444)
    code, out, err = project.run("--fix", "--no-cache")
    assert path.read_text() == FIXABLE and stat.S_IMODE(path.stat().st_mode) == 0o444
    assert code == 2
    assert err == ("torchperf-lint: error: a.py: could not write the fixes: the file is read-only; "
                   "the file is unchanged\n")
    assert out.count("TPL101") == 3 and "Fixed" not in out


def test_a_file_in_a_read_only_folder_is_not_rewritten(project):
    path = project.write("pkg/a.py", FIXABLE)
    path.parent.chmod(0o555)
    try:
        code, out, err = project.run("--fix", "--no-cache")
        assert sorted(p.name for p in path.parent.iterdir()) == ["a.py"]
    finally:
        path.parent.chmod(0o755)
    assert path.read_text() == FIXABLE
    assert code == 2
    assert err == ("torchperf-lint: error: pkg/a.py: could not write the fixes: its folder is read-only; "
                   "the file is unchanged\n")


def test_a_fixed_file_keeps_its_mode_and_its_symbolic_link(project):
    target = project.write("real.py", FIXABLE)
    target.chmod(0o750)
    link = project.root / "a.py"
    link.symlink_to("real.py")
    code, out, err = project.run("--fix", "--no-cache", "a.py")
    assert code == 0, err
    assert link.is_symlink() and os.readlink(link) == "real.py"
    assert target.read_text() == FIXED and stat.S_IMODE(target.stat().st_mode) == 0o750


@pytest.mark.skipif(os.geteuid() != 0, reason="only the super-user can write someone else's file")
def test_a_file_fixed_by_the_super_user_keeps_its_owner(project):
    path = project.write("a.py", FIXABLE)
    os.chown(path, 4321, 4321)
    code, out, err = project.run("--fix", "--no-cache")
    assert code == 0, err
    assert path.read_text() == FIXED and (path.stat().st_uid, path.stat().st_gid) == (4321, 4321)


def _session_processes(session: int):
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if os.getsid(int(entry)) == session:
                    found.append(int(entry))
            except OSError:
                pass
    return found


def _interrupt_a_parallel_fix(tmp_path: Path, files: int):
    """Start ``--fix -j 2`` over ``files`` fixable files and press Ctrl-C (SIGINT to the process
    group) as soon as the first file is replaced. Returns (returncode, stderr, root, files)."""
    tmp_path.mkdir()
    root = _project(tmp_path, files=files)
    paths = sorted(root.glob("m*.py"))
    inodes = [p.stat().st_ino for p in paths]
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    errors = open(tmp_path / "stderr.txt", "w+")
    # SIGINT at its default, as in a terminal: a test run started in the background by a
    # non-interactive shell inherits it ignored, and Python then installs no Ctrl-C handler.
    process = subprocess.Popen([sys.executable, "-c", CLI, "check", "--fix", "--no-cache", "-j", "2"], cwd=root,
                               stdout=subprocess.DEVNULL, stderr=errors, env=env, start_new_session=True,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        # A fixed file is a new inode (the atomic write renames a temporary file over it): a stat
        # per file is cheap enough that the signal follows the first fix closely, even under load.
        while process.poll() is None and all(p.stat().st_ino == i for p, i in zip(paths, inodes)):
            time.sleep(0.005)
        assert process.poll() is None, "the run ended before the first file was fixed"
        os.killpg(process.pid, signal.SIGINT)  # Ctrl-C in a terminal reaches the whole group
        process.wait(timeout=300)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    errors.seek(0)
    return process.returncode, errors.read(), root, paths, process.pid


def test_ctrl_c_during_a_parallel_fix_stops_and_leaves_every_file_old_or_new(tmp_path):
    # On a loaded machine the run could finish the whole tree between the first fix and the signal:
    # then it is tried again with four times the files (the assertions are about an interrupted run).
    for attempt, count in enumerate((300, 1200, 4800)):
        code, err, root, files, pid = _interrupt_a_parallel_fix(tmp_path / f"try{attempt}", count)
        finished_first = code == 0 and all(f.read_text() == FIXED for f in files)
        if not finished_first:
            break
    assert (code, err) == (130, "torchperf-lint: interrupted; every file is as it was or wholly fixed\n")
    assert _session_processes(pid) == []  # no worker goes on
    texts = [f.read_text() for f in files]
    assert set(texts) <= {FIXABLE, FIXED}
    assert texts.count(FIXED) < len(files) // 2  # it stopped, it did not finish the tree
    assert sorted(p.name for p in root.iterdir()) == sorted(["pyproject.toml", *(f.name for f in files)])


def test_sigterm_stops_a_parallel_fix_as_ctrl_c_does(tmp_path):
    root = _project(tmp_path, files=300)
    files = sorted(root.glob("m*.py"))
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    process = subprocess.Popen([sys.executable, "-c", CLI, "check", "--fix", "--no-cache", "-j", "2"], cwd=root,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env,
                               start_new_session=True)
    try:
        while process.poll() is None and all(f.read_text() == FIXABLE for f in files):
            time.sleep(0.01)
        assert process.poll() is None, "the run ended before the first file was fixed"
        process.send_signal(signal.SIGTERM)  # to the parent only, as a process manager does
        process.wait(timeout=300)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    assert process.returncode == 128 + signal.SIGTERM
    assert _session_processes(process.pid) == []
    texts = [f.read_text() for f in files]
    assert set(texts) <= {FIXABLE, FIXED}
    assert texts.count(FIXED) < len(files) // 2


def test_output_file_into_a_missing_folder_creates_it(project):
    project.write("a.py", FIXABLE)
    code, out, err = project.run("--no-cache", "-o", "reports/lint/out.txt", "--output-format", "json")
    assert code == 1 and out == "" and err == ""
    assert (project.root / "reports/lint/out.txt").read_text().count('"code": "TPL101"') == 3
    assert sorted(p.name for p in (project.root / "reports/lint").iterdir()) == ["out.txt"]


def test_output_file_onto_a_folder_is_refused_before_any_fix(project):
    path = project.write("a.py", FIXABLE)
    (project.root / "reports").mkdir()
    code, out, err = project.run("--fix", "--no-cache", "-o", "reports")
    assert code == 2 and out == ""
    assert err == "torchperf-lint: error: cannot write the report to reports: it is a directory\n"
    assert path.read_text() == FIXABLE


def test_output_file_onto_a_stream_is_written_to_it(project):
    project.write("a.py", FIXABLE)
    code, out, err = project.run("--no-cache", "-o", os.devnull)
    assert (code, out, err) == (1, "", "")
