"""What every multi-file project test needs: its own index cache and no project remembered from
an earlier test (the index keeps projects per process)."""
import pytest

from torchperf_lint.analysis import project_index


@pytest.fixture(autouse=True)
def fresh_index(tmp_path, monkeypatch):
    """Each test sees its own files: no project or cache of an earlier test."""
    monkeypatch.setenv(project_index.CACHE_ENV, str(tmp_path / "cache"))
    project_index._PROJECTS.clear()
    yield
    project_index._PROJECTS.clear()
