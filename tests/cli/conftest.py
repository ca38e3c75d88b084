"""Helpers for the CLI tests: run ``torchperf-lint`` in-process in a temporary project."""

import textwrap
from pathlib import Path

import pytest

from torchperf_lint.frontends import cli

from _cli_helpers import CLEAN, DATA_PARALLEL, FIXABLE, UNSAFE  # noqa: F401


class Project:
    def __init__(self, root: Path, capsys):
        self.root = root
        self.capsys = capsys

    def write(self, name: str, text: str, encoding: str = "utf-8") -> Path:
        path = self.root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(textwrap.dedent(text).encode(encoding) if isinstance(text, str) else text)
        return path

    def write_bytes(self, name: str, data: bytes) -> Path:
        path = self.root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        return path

    def config(self, toml: str) -> None:
        (self.root / "pyproject.toml").write_text("[tool.torchperf-lint]\n" + textwrap.dedent(toml))

    def run(self, *args: str):
        self.capsys.readouterr()
        code = cli.main(["check", "--jobs", "1", *args])
        out, err = self.capsys.readouterr()
        return code, out, err

    def raw(self, *args: str):
        self.capsys.readouterr()
        code = cli.main(list(args))
        out, err = self.capsys.readouterr()
        return code, out, err


@pytest.fixture
def project(tmp_path, monkeypatch, capsys):
    root = tmp_path / "proj"
    root.mkdir()
    (root / "pyproject.toml").write_text("[tool.torchperf-lint]\n")
    monkeypatch.chdir(root)
    monkeypatch.setenv(cli.CACHE_ENV, str(tmp_path / "cache"))
    return Project(root, capsys)
