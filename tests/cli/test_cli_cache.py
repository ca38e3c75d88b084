"""The cache: a re-run over unchanged files runs no rule; any change invalidates."""

import os
from pathlib import Path

import pytest
from _cli_helpers import DATA_PARALLEL, FIXABLE

from torchperf_lint.frontends import cache as cache_module
from torchperf_lint import engine


@pytest.fixture
def engine_calls(monkeypatch):
    calls = []
    real = engine.lint_source

    def counting(source, filename="<string>", *args, **kwargs):
        calls.append(os.path.basename(filename))
        return real(source, filename, *args, **kwargs)

    monkeypatch.setattr(engine, "lint_source", counting)
    return calls


def test_second_run_does_not_call_the_engine(project, engine_calls):
    project.write("a.py", FIXABLE)
    project.write("c.py", DATA_PARALLEL)
    first = project.run("--output-format", "json")
    assert sorted(engine_calls) == ["a.py", "c.py"]
    engine_calls.clear()
    second = project.run("--output-format", "json")
    assert engine_calls == []
    assert second == first  # findings, fixes included, round-trip through the cache
    # a warm --fix still applies the cached fixes (it must read that file, and only that one)
    code, out, _ = project.run("--fix")
    assert engine_calls and set(engine_calls) == {"a.py"}
    assert "Fixed 3 findings." in out


def test_changes_invalidate(project, engine_calls):
    a = project.write("a.py", DATA_PARALLEL)
    project.write("b.py", DATA_PARALLEL)
    project.run()
    engine_calls.clear()
    a.write_text(DATA_PARALLEL + "x = 1\n")  # other size
    assert project.run()[0] == 1
    assert engine_calls == ["a.py"]
    engine_calls.clear()
    # same size, other content, other mtime: the digest decides
    a.write_text(DATA_PARALLEL.replace("2, 2", "3, 3") + "x = 1\n")
    os.utime(a, ns=(a.stat().st_atime_ns, a.stat().st_mtime_ns + 10_000_000))
    project.run()
    assert engine_calls == ["a.py"]
    engine_calls.clear()
    # touched but unchanged: no lint
    os.utime(a, ns=(a.stat().st_atime_ns, a.stat().st_mtime_ns + 10_000_000))
    project.run()
    assert engine_calls == []
    # other selection: another cache
    project.run("--select", "TPL2")
    assert sorted(engine_calls) == ["a.py", "b.py"]
    engine_calls.clear()
    # per-file-ignores change the codes of one file
    project.config('[tool.torchperf-lint.per-file-ignores]\n"b.py" = ["TPL1"]\n')
    project.run()
    assert engine_calls == ["b.py"]
    engine_calls.clear()
    # --no-cache always lints
    project.run("--no-cache")
    assert sorted(engine_calls) == ["a.py", "b.py"]


def test_package_change_invalidates(project, engine_calls, monkeypatch):
    project.write("a.py", DATA_PARALLEL)
    project.run()
    engine_calls.clear()
    monkeypatch.setattr(cache_module, "_package_digest", "edited-rule")
    project.run()
    assert engine_calls == ["a.py"]


def test_package_digest_covers_the_rule_modules(tmp_path, monkeypatch):
    """Editing a rule (rules/, analysis/) changes the digest, not only editing frontends/ where
    cache.py lives: a stale cache once kept a rule's old findings after the package got rooms."""
    import shutil

    package = Path(cache_module.__file__).resolve().parent.parent
    copy = tmp_path / "torchperf_lint"
    shutil.copytree(package, copy, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(cache_module, "__file__", str(copy / "frontends" / "cache.py"))
    monkeypatch.setattr(cache_module, "_package_digest", None)
    before = cache_module.package_digest()
    rule = copy / "rules" / "tpl102_host_sync_in_loop.py"
    rule.write_text(rule.read_text() + "\n# edited\n")
    monkeypatch.setattr(cache_module, "_package_digest", None)
    assert cache_module.package_digest() != before


def test_cache_location_and_corruption(project, tmp_path, monkeypatch, engine_calls):
    from torchperf_lint.frontends import cli

    monkeypatch.delenv(cli.CACHE_ENV)
    project.write("a.py", DATA_PARALLEL)
    project.run()
    directory = project.root / ".torchperf_lint_cache"
    files = [p for p in directory.iterdir() if p.suffix == ".marshal"]
    assert len(files) == 1 and (directory / ".gitignore").read_text().strip().endswith("*")
    files[0].write_bytes(b"garbage")
    engine_calls.clear()
    assert project.run()[0] == 1  # a broken cache is ignored, and rewritten
    assert engine_calls == ["a.py"]
    engine_calls.clear()
    assert project.run()[0] == 1
    assert engine_calls == []


def test_a_run_in_process_leaves_the_index_cache_setting_as_it_found_it(project):
    """The CLI sets the project index's disk cache for its run (``--no-cache``, ``--cache-dir``) and
    puts the host's setting back after it: a later lint in the same process (an editor, a test)
    must not read summaries from the last run's cache folder."""
    from torchperf_lint.analysis import project_index

    project.write("train.py", FIXABLE)
    before = project_index.disk_cache_configuration()
    code, _, _ = project.run("--cache-dir", str(project.root / "elsewhere"), "train.py")
    assert code == 1
    assert project_index.disk_cache_configuration() == before
    project.run("--no-cache", "train.py")
    assert project_index.disk_cache_configuration() == before
