"""``torchperf-lint server`` driven as an editor drives it: a subprocess spoken to in JSON-RPC over
stdio (tests/server/lsp_client.py), documents opened, changed and closed, code actions asked for
and applied to the text."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("pygls")
pytest.importorskip("lsprotocol")

from lsp_client import LspClient, action_edits, apply_edits  # noqa: E402

from _diagnostics import CPU_CREATION_TEMPLATE as MOVE, DATA_PARALLEL_MESSAGE as DATA_PARALLEL  # noqa: E402

DOCS = "https://github.com/torchperf-lint/torchperf-lint/blob/main/docs/rules/"

SOURCE = """\
import torch
from torch.utils.data import DataLoader

def make(device, ds, sampler):
    a = torch.arange(6, dtype=torch.float32).to(device)  # keep
    b = torch.zeros(3).cuda()  # noqa: TPL201
    n = torch.rand(3).to(device)
    loader = DataLoader(ds, sampler=sampler, shuffle=True, num_workers=2)
    return a, b, n, loader

model = torch.nn.DataParallel(torch.nn.Linear(2, 2))
"""
CLEAN = """\
import torch

x = torch.zeros(3, device="cpu")
"""

SHUFFLE = ("`DataLoader` raises ValueError when given both `sampler=` and `shuffle=True`; drop `shuffle` (a "
           "`DistributedSampler` shuffles by itself; call its `set_epoch`)")


def diagnostic(code, line, col, end_line, end_col, message, fix=None):
    out = {
        "range": {"start": {"line": line, "character": col}, "end": {"line": end_line, "character": end_col}},
        "message": message,
        "severity": 2,
        "code": code,
        "codeDescription": {"href": f"{DOCS}{code}.md"},
        "source": "torchperf-lint",
    }
    if fix is not None:
        out["data"] = {"fix": fix}
    return out


SOURCE_DIAGNOSTICS = [
    diagnostic("TPL101", 4, 8, 4, 44, MOVE.format(factory="arange"), "safe"),
    diagnostic("TPL101", 5, 8, 5, 22, MOVE.format(factory="zeros"), "safe"),
    diagnostic("TPL101", 6, 8, 6, 21, MOVE.format(factory="rand"), "unsafe"),
    diagnostic("TPL203", 7, 13, 7, 73, SHUFFLE, "safe"),
    diagnostic("TPL201", 10, 8, 10, 52, DATA_PARALLEL),
]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "demo"\n', encoding="utf-8")
    return tmp_path


@pytest.fixture
def client_factory(project):
    clients = []

    def make(**kwargs) -> LspClient:
        client = LspClient(project, **kwargs)
        clients.append(client)
        return client

    yield make
    for client in clients:
        if client.process.poll() is None:
            client.shutdown()


def write(project: Path, name: str, text: str) -> Path:
    path = project / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_capabilities(client_factory):
    client = client_factory()
    assert client.initialize_result == {
        "capabilities": {
            "positionEncoding": "utf-16",
            "textDocumentSync": {"openClose": True, "change": 1, "save": True},
            "codeActionProvider": {"codeActionKinds": ["quickfix", "source.fixAll", "source.fixAll.torchperf-lint"]},
            "executeCommandProvider": {"commands": []},
            "diagnosticProvider": {"interFileDependencies": True, "workspaceDiagnostics": False,
                                   "identifier": "torchperf-lint"},
            "workspace": {"workspaceFolders": {"supported": True, "changeNotifications": True},
                          "fileOperations": {}},
        },
        "serverInfo": {"name": "torchperf-lint", "version": "0.1.0"},
    }
    assert client.shutdown() == 0


def test_open_change_save_close_push_diagnostics(client_factory, project):
    path = write(project, "train.py", SOURCE)
    client = client_factory()
    uri = client.open(path)
    assert client.diagnostics(uri, 1) == SOURCE_DIAGNOSTICS
    client.change(uri, CLEAN, 2)
    assert client.diagnostics(uri, 2) == []
    client.change(uri, SOURCE.replace("  # noqa: TPL201", ""), 3)
    assert client.diagnostics(uri, 3) == SOURCE_DIAGNOSTICS
    client.notify("textDocument/didSave", {"textDocument": {"uri": uri}})
    assert client.diagnostics(uri, 3) == SOURCE_DIAGNOSTICS
    client.close_document(uri)
    assert client.wait_for("textDocument/publishDiagnostics", lambda p: p["uri"] == uri) == {
        "uri": uri, "diagnostics": []}


def test_a_burst_of_changes_ends_with_the_diagnostics_of_the_last_text(client_factory, project):
    path = write(project, "train.py", CLEAN)
    client = client_factory()
    uri = client.open(path)
    assert client.diagnostics(uri, 1) == []
    for version in range(2, 7):  # sent without waiting, as typing does
        client.change(uri, SOURCE if version % 2 == 0 else CLEAN, version)
    client.change(uri, SOURCE, 7)
    assert client.diagnostics(uri, 7) == SOURCE_DIAGNOSTICS


def test_safe_fix_is_a_preferred_quick_fix_and_applies(client_factory, project):
    path = write(project, "train.py", SOURCE)
    client = client_factory()
    uri = client.open(path)
    client.diagnostics(uri, 1)
    actions = client.code_actions(uri, 4, 4)
    assert [(a["title"], a["kind"], a.get("isPreferred"), [d["code"] for d in a["diagnostics"]]) for a in actions] == [
        ("TPL101: Create the tensor with device=device", "quickfix", True, ["TPL101"]),
        ("TPL101: Add `# noqa: TPL101`", "quickfix", None, ["TPL101"]),
    ]
    assert actions[0]["edit"] == {"documentChanges": [{
        "textDocument": {"uri": uri, "version": 1},
        "edits": [{"range": {"start": {"line": 4, "character": 43}, "end": {"line": 4, "character": 48}},
                   "newText": ", device="}],
    }]}
    fixed = apply_edits(SOURCE, action_edits(actions[0], uri))
    assert fixed == SOURCE.replace(".float32).to(device)", ".float32, device=device)")
    client.change(uri, fixed, 2)
    assert client.diagnostics(uri, 2) == SOURCE_DIAGNOSTICS[1:]


def test_unsafe_fix_only_when_configured(client_factory, project):
    path = write(project, "train.py", SOURCE)
    client = client_factory()
    uri = client.open(path)
    client.diagnostics(uri, 1)
    assert [a["title"] for a in client.code_actions(uri, 6, 6)] == ["TPL101: Add `# noqa: TPL101`"]
    client.shutdown()

    unsafe_client = client_factory(initialization_options={"unsafeFixes": True})
    uri = unsafe_client.open(path)
    unsafe_client.diagnostics(uri, 1)
    actions = unsafe_client.code_actions(uri, 6, 6)
    assert [(a["title"], a.get("isPreferred")) for a in actions] == [
        ("TPL101: Create the tensor with device=device (unsafe)", False),
        ("TPL101: Add `# noqa: TPL101`", None),
    ]
    assert apply_edits(SOURCE, action_edits(actions[0], uri)) == SOURCE.replace(
        "torch.rand(3).to(device)", "torch.rand(3, device=device)")


def test_unsafe_fixes_from_the_project_configuration(client_factory, project):
    (project / "pyproject.toml").write_text('[tool.torchperf-lint]\nunsafe-fixes = true\nignore = ["TPL201"]\n',
                                            encoding="utf-8")
    path = write(project, "train.py", SOURCE)
    client = client_factory()
    uri = client.open(path)
    assert client.diagnostics(uri, 1) == SOURCE_DIAGNOSTICS[:4]  # TPL201 ignored as the CLI does
    assert [a["title"] for a in client.code_actions(uri, 6, 6)] == [
        "TPL101: Create the tensor with device=device (unsafe)", "TPL101: Add `# noqa: TPL101`"]


def test_noqa_action_adds_and_merges(client_factory, project):
    path = write(project, "train.py", SOURCE)
    client = client_factory()
    uri = client.open(path)
    client.diagnostics(uri, 1)
    by_line = {}
    for line in (4, 5, 10):
        [noqa] = [a for a in client.code_actions(uri, line, line) if "noqa" in a["title"]]
        by_line[line] = apply_edits(SOURCE, action_edits(noqa, uri)).splitlines()[line]
    assert by_line == {
        4: "    a = torch.arange(6, dtype=torch.float32).to(device)  # keep  # noqa: TPL101",
        5: "    b = torch.zeros(3).cuda()  # noqa: TPL201, TPL101",
        10: "model = torch.nn.DataParallel(torch.nn.Linear(2, 2))  # noqa: TPL201",
    }
    merged = apply_edits(SOURCE, action_edits(
        [a for a in client.code_actions(uri, 5, 5) if "noqa" in a["title"]][0], uri))
    client.change(uri, merged, 2)
    assert client.diagnostics(uri, 2) == [SOURCE_DIAGNOSTICS[0], *SOURCE_DIAGNOSTICS[2:]]


def test_fix_all_source_action(client_factory, project):
    path = write(project, "train.py", SOURCE)
    client = client_factory()
    uri = client.open(path)
    client.diagnostics(uri, 1)
    actions = client.code_actions(uri, 0, 0, only=["source.fixAll"])
    assert [(a["title"], a["kind"]) for a in actions] == [
        ("torchperf-lint: Fix all auto-fixable problems (3)", "source.fixAll.torchperf-lint")]
    fixed = apply_edits(SOURCE, action_edits(actions[0], uri))
    assert fixed == textwrap.dedent("""\
        import torch
        from torch.utils.data import DataLoader

        def make(device, ds, sampler):
            a = torch.arange(6, dtype=torch.float32, device=device)  # keep
            b = torch.zeros(3, device="cuda")  # noqa: TPL201
            n = torch.rand(3).to(device)
            loader = DataLoader(ds, sampler=sampler, shuffle=sampler is None, num_workers=2)
            return a, b, n, loader

        model = torch.nn.DataParallel(torch.nn.Linear(2, 2))
        """)
    # The same text as the CLI's --fix writes.
    subprocess.run([sys.executable, "-m", "torchperf_lint.frontends.cli", "check", "--fix", "--no-cache",
                    str(path)], cwd=project, capture_output=True, check=False)
    assert path.read_text(encoding="utf-8") == fixed
    # Asked for quick fixes only, no fix-all; asked for every kind, the fix-all comes last.
    assert all(a["kind"] == "quickfix" for a in client.code_actions(uri, 0, 20))
    assert [a["kind"] for a in client.code_actions(uri, 4, 4, only=None)] == [
        "quickfix", "quickfix", "source.fixAll.torchperf-lint"]
    client.change(uri, fixed, 2)
    client.diagnostics(uri, 2)
    assert client.code_actions(uri, 0, 0, only=["source.fixAll.torchperf-lint"]) == []


def test_pull_diagnostics(client_factory, project):
    path = write(project, "train.py", SOURCE)
    client = client_factory(capabilities={"textDocument": {"diagnostic": {"dynamicRegistration": False}}})
    uri = client.open(path)
    report = client.request("textDocument/diagnostic", {"textDocument": {"uri": uri}})
    assert report == {"kind": "full", "items": SOURCE_DIAGNOSTICS, "resultId": report["resultId"]}
    assert client.request("textDocument/diagnostic", {"textDocument": {"uri": uri},
                                                      "previousResultId": report["resultId"]}) == {
        "kind": "unchanged", "resultId": report["resultId"]}
    client.change(uri, CLEAN, 2)
    assert client.request("textDocument/diagnostic", {"textDocument": {"uri": uri},
                                                      "previousResultId": report["resultId"]})["items"] == []
    # A client that pulls gets no pushed diagnostics (editors would show them twice).
    assert [m for m in list(client.notifications.queue) if m.get("method") == "textDocument/publishDiagnostics"] == []


def test_push_mode_forced_for_a_pulling_client(client_factory, project):
    path = write(project, "train.py", "import torch\n\ny = torch.zeros(3).cuda()\n")
    client = client_factory(capabilities={"textDocument": {"diagnostic": {}}},
                            initialization_options={"diagnosticMode": "push"})
    uri = client.open(path)
    assert [d["code"] for d in client.diagnostics(uri, 1)] == ["TPL101"]


def test_a_change_relints_the_other_open_documents_of_the_project(client_factory, project):
    helper = write(project, "helpers.py", "import torch\n\ndef log(x):\n    return x\n")
    train = write(project, "train.py", SOURCE)
    elsewhere = write(project.parent / (project.name + "-other"), "other.py", SOURCE)
    client = client_factory(initialization_options={"projectDebounceMs": 10})
    helper_uri, train_uri, other_uri = client.open(helper), client.open(train), client.open(elsewhere)
    for uri in (helper_uri, train_uri, other_uri):
        client.diagnostics(uri, 1)
    client.change(helper_uri, "import torch\n\ndef log(x):\n    return x.item()\n", 2)
    seen = []
    while len(seen) < 2:
        params = client.wait_for("textDocument/publishDiagnostics")
        seen.append((params["uri"], params["version"], len(params["diagnostics"])))
    assert sorted(seen) == sorted([(helper_uri, 2, 0), (train_uri, 1, 5)])


# A stand-in for the project index (issue 20), planted at the one place it plugs in
# (ProjectState.analyse): a file's findings depend on the unsaved text of another open file.
FAKE_INDEX = """\
import os
import torchperf_lint.frontends.server as server
from torchperf_lint.findings import Finding

original = server.ProjectState.analyse


def analyse(self, path, text, codes, line_length):
    findings, rows = original(self, path, text, codes, line_length)
    for other, other_text in sorted(self.open_texts.items()):
        if other != path and "CROSS-FILE" in other_text:
            findings = findings + [Finding("TPL102", 1, 0, "depends on " + os.path.basename(other))]
            rows = rows + [1]
    return findings, rows


server.ProjectState.analyse = analyse
"""


def test_a_helper_change_reaches_the_files_that_depend_on_it(client_factory, project, tmp_path_factory):
    plugin = tmp_path_factory.mktemp("fake_index")
    (plugin / "sitecustomize.py").write_text(FAKE_INDEX, encoding="utf-8")
    import os

    helper = write(project, "helpers.py", "import torch\n")
    train = write(project, "train.py", SOURCE)
    client = client_factory(initialization_options={"projectDebounceMs": 10},
                            env={"PYTHONPATH": os.pathsep.join([str(plugin), os.environ.get("PYTHONPATH", "")])})
    helper_uri, train_uri = client.open(helper), client.open(train)
    assert client.diagnostics(helper_uri, 1) == []
    assert client.diagnostics(train_uri, 1) == SOURCE_DIAGNOSTICS
    depends = {"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 12}},
               "message": "depends on helpers.py", "severity": 2, "code": "TPL102",
               "codeDescription": {"href": f"{DOCS}TPL102.md"}, "source": "torchperf-lint"}
    client.change(helper_uri, "import torch\n# CROSS-FILE\n", 2)  # unsaved: only the editor has it
    assert client.diagnostics(train_uri, 1) == [*SOURCE_DIAGNOSTICS, depends]
    client.change(helper_uri, "import torch\n", 3)
    assert client.diagnostics(train_uri, 1) == SOURCE_DIAGNOSTICS
    client.change(helper_uri, "import torch\n# CROSS-FILE\n", 4)
    assert client.diagnostics(train_uri, 1) == [*SOURCE_DIAGNOSTICS, depends]
    # Closed without saving: the file on disk counts again.
    client.close_document(helper_uri)
    assert client.diagnostics(train_uri, 1) == SOURCE_DIAGNOSTICS


UTILS = "import torch\n\n\ndef log_metrics(loss):\n    print(loss.item())\n"
TRAIN = ("import torch\nimport utils\n\n\ndef train(model, loader, optimizer):\n    for x, y in loader:\n"
         "        loss = model(x).sum()\n        loss.backward()\n        optimizer.step()\n")


def test_the_project_index_reads_unsaved_edits_of_other_files(client_factory, project):
    # The real index: log_metrics runs every step only once train.py's loop calls it, and the
    # editor's unsaved text of train.py decides it (rules.md "A step body", "The project").
    utils = write(project, "utils.py", UTILS)
    train = write(project, "train.py", TRAIN)
    client = client_factory(initialization_options={"projectDebounceMs": 10})
    utils_uri, train_uri = client.open(utils), client.open(train)
    assert client.diagnostics(utils_uri, 1) == []
    assert client.diagnostics(train_uri, 1) == []
    client.change(train_uri, TRAIN + "        utils.log_metrics(loss)\n", 2)  # not saved
    sync = diagnostic("TPL102", 4, 10, 4, 21,
                      "`.item()` waits for the device in every iteration; keep values on the device (`total += "
                      "loss.detach()`) and sync once after the loop or every N steps (runtime_guard: sync report) "
                      "(called every step from train.py:10)")
    assert client.diagnostics(utils_uri, 1) == [sync]
    client.close_document(train_uri)  # closed without saving: the file on disk counts again
    assert client.diagnostics(utils_uri, 1) == []


def test_an_internal_error_is_shown_and_the_server_goes_on(client_factory, project, tmp_path_factory):
    plugin = tmp_path_factory.mktemp("broken_analysis")
    (plugin / "sitecustomize.py").write_text(
        "import torchperf_lint.frontends.server as server\n"
        "original = server.ProjectState.analyse\n"
        "def analyse(self, path, text, codes, line_length):\n"
        "    if path.endswith('boom.py'):\n"
        "        raise RuntimeError('boom')\n"
        "    return original(self, path, text, codes, line_length)\n"
        "server.ProjectState.analyse = analyse\n", encoding="utf-8")
    import os

    client = client_factory(env={"PYTHONPATH": os.pathsep.join([str(plugin), os.environ.get("PYTHONPATH", "")])})
    client.open(write(project, "boom.py", SOURCE))
    assert client.wait_for("window/showMessage") == {
        "type": 1, "message": "torchperf-lint: internal error RuntimeError: boom (please report it)"}
    uri = client.open(write(project, "train.py", SOURCE))
    assert client.diagnostics(uri, 1) == SOURCE_DIAGNOSTICS


def test_files_changed_on_disk_relint_the_open_documents(client_factory, project):
    helper = write(project, "helpers.py", "import torch\n")
    train = write(project, "train.py", SOURCE)
    client = client_factory(capabilities={"workspace": {"didChangeWatchedFiles": {"dynamicRegistration": True}}},
                            initialization_options={"projectDebounceMs": 10})
    uri = client.open(train)
    assert client.diagnostics(uri, 1) == SOURCE_DIAGNOSTICS
    assert client.server_requests[0]["method"] == "client/registerCapability"
    assert client.server_requests[0]["params"] == {"registrations": [{
        "id": "torchperf-lint-watched-files", "method": "workspace/didChangeWatchedFiles",
        "registerOptions": {"watchers": [{"globPattern": f"**/{name}"} for name in (
            "*.py", "*.pyi", ".flake8", "pyproject.toml", "setup.cfg", "tox.ini")]}}]}
    client.notify("workspace/didChangeWatchedFiles", {"changes": [{"uri": helper.as_uri(), "type": 2}]})
    assert client.diagnostics(uri, 1) == SOURCE_DIAGNOSTICS
    # A configuration file changed on disk: read again, applied to the open file.
    (project / "pyproject.toml").write_text('[tool.torchperf-lint]\nselect = ["TPL2"]\n', encoding="utf-8")
    client.notify("workspace/didChangeWatchedFiles", {"changes": [
        {"uri": (project / "pyproject.toml").as_uri(), "type": 2}]})
    assert [d["code"] for d in client.diagnostics(uri, 1)] == ["TPL203", "TPL201"]


def test_a_file_written_on_disk_that_imports_an_open_file_reaches_it(client_factory, project):
    # The index lists the project's import lines at most every few seconds, and again when the
    # editor reports files changed on disk: a new caller is seen at once.
    utils = write(project, "utils.py", UTILS)
    client = client_factory(capabilities={"workspace": {"didChangeWatchedFiles": {"dynamicRegistration": True}}},
                            initialization_options={"projectDebounceMs": 10})
    utils_uri = client.open(utils)
    assert client.diagnostics(utils_uri, 1) == []
    train = write(project, "train.py", TRAIN + "        utils.log_metrics(loss)\n")
    client.notify("workspace/didChangeWatchedFiles", {"changes": [{"uri": train.as_uri(), "type": 1}]})
    assert client.diagnostics(utils_uri, 1) == [diagnostic(
        "TPL102", 4, 10, 4, 21,
        "`.item()` waits for the device in every iteration; keep values on the device (`total += "
        "loss.detach()`) and sync once after the loop or every N steps (runtime_guard: sync report) "
        "(called every step from train.py:10)")]


def test_which_documents_a_change_relints(tmp_path):
    from torchperf_lint.frontends.server import Projects, documents_to_relint

    one, two = tmp_path / "one", tmp_path / "two"
    for root in (one, two):
        (root / "pkg").mkdir(parents=True)
        (root / "pyproject.toml").write_text("[project]\nname = 'x'\n", encoding="utf-8")
    open_documents = {"a": one / "train.py", "b": one / "pkg" / "helpers.py", "c": two / "train.py",
                      "untitled:1": None}
    projects = Projects()
    assert documents_to_relint(projects, open_documents, "b") == ["a"]
    assert documents_to_relint(projects, open_documents, "c") == []
    assert documents_to_relint(projects, open_documents, None, {str(one), str(two)}) == ["a", "b", "c"]


def test_positions_in_utf16_units(client_factory, project):
    text = 'import torch\n\ns = "\U0001f525\u00e9"; y = torch.zeros(3).cuda()\n'
    path = write(project, "emoji.py", text)
    client = client_factory()
    uri = client.open(path)
    [diag] = client.diagnostics(uri, 1)
    # 🔥 is two UTF-16 units, é one: the call starts at code point 14, UTF-16 unit 15.
    assert diag["range"] == {"start": {"line": 2, "character": 15}, "end": {"line": 2, "character": 29}}
    [fix] = [a for a in client.code_actions(uri, 2, 2) if a.get("isPreferred")]
    assert apply_edits(text, action_edits(fix, uri)) == text.replace("zeros(3).cuda()", 'zeros(3, device="cuda")')


def test_excluded_and_test_files_get_no_diagnostics(client_factory, project):
    (project / "pyproject.toml").write_text('[tool.torchperf-lint]\nextend-exclude = ["generated"]\n',
                                            encoding="utf-8")
    excluded = write(project, "generated/model.py", SOURCE)
    test_file = write(project, "tests/test_model.py", SOURCE)
    client = client_factory()
    assert client.diagnostics(client.open(excluded), 1) == []
    assert client.diagnostics(client.open(test_file), 1) == []


def test_notebook_cells_and_other_languages_are_not_linted(client_factory, project):
    from torchperf_lint.frontends.server import lintable

    assert [lintable(uri, language) for uri, language in (
        ("file:///p/train.py", "python"), ("file:///p/stub.pyi", ""), ("untitled:Untitled-1", "python"),
        ("file:///p/script", "python"), ("vscode-notebook-cell:/p/nb.ipynb#W0sZmlsZQ", "python"),
        ("file:///p/nb.ipynb", "json"), ("file:///p/nb.ipynb", "python"), ("file:///p/notes.md", "markdown"),
    )] == [True, True, True, True, False, False, False, False]
    client = client_factory()
    cell = "vscode-notebook-cell:" + (project / "nb.ipynb").as_posix() + "#W0"
    client.notify("textDocument/didOpen", {"textDocument": {"uri": cell, "languageId": "python", "version": 1,
                                                            "text": SOURCE}})
    path = write(project, "train.py", SOURCE)
    uri = client.open(path)
    # The first diagnostics published are those of train.py: the cell got none.
    assert client.wait_for("textDocument/publishDiagnostics")["uri"] == uri


def test_configuration_error_is_shown_and_nothing_is_linted(client_factory, project):
    (project / "pyproject.toml").write_text('[tool.torchperf-lint]\nselect = ["NOPE"]\n', encoding="utf-8")
    path = write(project, "train.py", SOURCE)
    client = client_factory()
    uri = client.open(path)
    assert client.wait_for("window/showMessage") == {
        "type": 1, "message": f"torchperf-lint: {project / 'pyproject.toml'}: unknown rule selector 'NOPE' "
                              "(see `torchperf-lint rule --all`)"}
    assert client.diagnostics(uri, 1) == []
    # Fixed and saved: the configuration is read again, and the open file is linted.
    (project / "pyproject.toml").write_text('[tool.torchperf-lint]\nselect = ["TPL2"]\n', encoding="utf-8")
    client.notify("textDocument/didSave", {"textDocument": {"uri": (project / "pyproject.toml").as_uri()}})
    assert [d["code"] for d in client.diagnostics(uri, 1)] == ["TPL203", "TPL201"]


def test_server_without_pygls_says_how_to_install_it(tmp_path):
    blocker = tmp_path / "block"
    blocker.mkdir()
    # A module finder that hides pygls, as on an install without the `server` extra.
    (blocker / "sitecustomize.py").write_text(textwrap.dedent("""\
        import sys
        class _Hide:
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0] in ("pygls", "lsprotocol"):
                    raise ImportError(name)
        sys.meta_path.insert(0, _Hide())
        """), encoding="utf-8")
    import os

    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(blocker), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-m", "torchperf_lint.frontends.cli", "server"], cwd=tmp_path,
                          env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    assert (done.returncode, done.stdout, done.stderr) == (
        2, "", 'torchperf-lint: error: the language server needs pygls and lsprotocol: pip install '
               '"torchperf-lint[server]" (from a clone of the repository: pip install -e ".[server]")\n')
    # The linter itself runs without them.
    (tmp_path / "a.py").write_text(CLEAN, encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "torchperf_lint.frontends.cli", "check", "--no-cache", "a.py"],
                          cwd=tmp_path, env=env, capture_output=True, text=True)
    assert (done.returncode, done.stdout) == (0, "All checks passed!\n")


def test_target_torch_from_the_project_requirement(client_factory, project):
    # torch>=2.0: torch.amp.GradScaler (2.3) is too new to suggest, torch.amp.autocast (1.10) is not;
    # the server reads the requirement as the CLI does (rules.md "Target torch").
    (project / "pyproject.toml").write_text('[project]\nname = "demo"\ndependencies = ["torch>=2.0,<2.3"]\n',
                                            encoding="utf-8")
    path = write(project, "train.py", "import torch\n\nscaler = torch.cuda.amp.GradScaler()\n"
                                      "ctx = torch.cuda.amp.autocast()\n")
    client = client_factory()
    uri = client.open(path)
    assert [(d["code"], d["range"]["start"]["line"]) for d in client.diagnostics(uri, 1)] == [("TPL304", 3)]
    cli = subprocess.run([sys.executable, "-m", "torchperf_lint.frontends.cli", "check", "--output-format",
                          "json", str(path)], cwd=project, capture_output=True, text=True)
    assert '"row": 4' in cli.stdout and '"row": 3' not in cli.stdout
