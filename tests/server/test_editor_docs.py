"""The editor snippets of docs/editors.md: each parses in its language, and the server starts with
the command and initialization options it gives."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

pytest.importorskip("pygls")

from lsp_client import LspClient  # noqa: E402

DOC = Path(__file__).resolve().parents[2] / "docs" / "editors.md"


def blocks(language: str):
    return re.findall(rf"```{language}\n(.*?)```", DOC.read_text(encoding="utf-8"), re.DOTALL)


def test_the_doc_has_one_snippet_per_editor():
    assert (len(blocks("json")), len(blocks("lua")), len(blocks("toml"))) == (1, 2, 1)


def test_vscode_settings_parse_and_start_the_server(tmp_path):
    [text] = blocks("json")
    settings = json.loads(text)
    assert (settings["glspc.server.command"], settings["glspc.server.commandArguments"]) == (
        "torchperf-lint", ["server"])
    assert settings["editor.codeActionsOnSave"] == {"source.fixAll.torchperf-lint": "explicit"}
    client = LspClient(tmp_path, initialization_options=settings["glspc.server.initializationOptions"])
    assert client.initialize_result["serverInfo"]["name"] == "torchperf-lint"
    assert client.shutdown() == 0


def test_helix_languages_toml_parses_and_starts_the_server(tmp_path):
    [text] = blocks("toml")
    config = tomllib.loads(text)
    server = config["language-server"]["torchperf-lint"]
    assert (server["command"], server["args"]) == ("torchperf-lint", ["server"])
    assert config["language"] == [{"name": "python", "language-servers": ["pylsp", "torchperf-lint"]}]
    # The console script itself, as Helix runs it.
    command = shutil.which(server["command"], path=str(Path(sys.executable).parent)) or shutil.which(server["command"])
    assert command is not None
    process = subprocess.Popen([command, *server["args"]], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, cwd=tmp_path)
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "processId": None, "rootUri": tmp_path.as_uri(), "capabilities": {},
        "initializationOptions": server["config"]}}).encode()
    exit_body = json.dumps({"jsonrpc": "2.0", "method": "exit"}).encode()
    out, _ = process.communicate(b"Content-Length: %d\r\n\r\n%s" % (len(body), body)
                                 + b"Content-Length: %d\r\n\r\n%s" % (len(exit_body), exit_body), timeout=60)
    header, _, payload = out.partition(b"\r\n\r\n")
    length = int(re.search(rb"Content-Length: *(\d+)", header).group(1))
    assert json.loads(payload[:length])["result"]["serverInfo"]["name"] == "torchperf-lint"
    assert process.returncode == 1  # exit without shutdown, as the protocol says


def _balanced(lua: str) -> bool:
    """Brackets balance outside strings and comments (the check when no Lua compiler is installed)."""
    lua = re.sub(r"--[^\n]*", "", re.sub(r'"(?:[^"\\\n]|\\.)*"', '""', lua))
    pairs, stack = {")": "(", "}": "{", "]": "["}, []
    for char in lua:
        if char in "({[":
            stack.append(char)
        elif char in pairs:
            if not stack or stack.pop() != pairs[char]:
                return False
    blocks_opened = len(re.findall(r"\b(?:function|if|do)\b", lua))  # each closed by an `end`
    return not stack and blocks_opened == len(re.findall(r"\bend\b", lua))


@pytest.mark.parametrize("index", [0, 1])
def test_neovim_lua_is_well_formed(index, tmp_path):
    text = blocks("lua")[index]
    assert '{ "torchperf-lint", "server" }' in text
    assert _balanced(text)
    compiler = shutil.which("luac") or shutil.which("luac5.4") or shutil.which("luac5.3")
    if compiler is not None:
        script = tmp_path / "init.lua"
        script.write_text(text, encoding="utf-8")
        done = subprocess.run([compiler, "-p", str(script)], capture_output=True, text=True)
        assert (done.returncode, done.stderr) == (0, "")


def test_the_balance_check_catches_a_broken_snippet():
    assert not _balanced('vim.lsp.config("x", { cmd = { "a" }')
    assert not _balanced("vim.keymap.set('n', 'x', function() print(1) end, {})".replace(" end", ""))
