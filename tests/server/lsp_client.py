"""A plain JSON-RPC client over stdio for ``torchperf-lint server`` (no pygls on this side: the test
speaks the protocol as an editor does). The benchmark uses it too."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from pathlib import Path
from typing import Callable, Dict, List, Optional

# A bound on waiting for the server, so that a broken server fails a test instead of hanging it.
WAIT_S = 60.0


class LspClient:
    def __init__(self, cwd: Path, initialization_options: Optional[dict] = None,
                 capabilities: Optional[dict] = None, env: Optional[dict] = None):
        self.process = subprocess.Popen(
            [sys.executable, "-m", "torchperf_lint.frontends.cli", "server"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=str(cwd),
            env={**os.environ, **(env or {})},
        )
        self._next_id = 0
        self._responses: Dict[int, "queue.Queue[dict]"] = {}
        self._lock = threading.Lock()
        self.notifications: "queue.Queue[dict]" = queue.Queue()
        self.server_requests: List[dict] = []
        self._reader = threading.Thread(target=self._read_loop, daemon=True)
        self._reader.start()
        self.root = cwd
        self.initialize_result = self.request("initialize", {
            "processId": os.getpid(),
            "rootUri": cwd.as_uri(),
            "capabilities": capabilities or {},
            "initializationOptions": initialization_options or {},
        })
        self.notify("initialized", {})

    # ---- the wire ------------------------------------------------------------------------------

    def _send(self, message: dict) -> None:
        body = json.dumps(message).encode("utf-8")
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()

    def _read_loop(self) -> None:
        stream = self.process.stdout
        while True:
            length = None
            while True:
                header = stream.readline()
                if not header:
                    return
                header = header.strip()
                if not header:
                    break
                name, _, value = header.decode("ascii").partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            message = json.loads(stream.read(length))
            if "id" in message and "method" in message:  # a request from the server
                self.server_requests.append(message)
                self._send({"jsonrpc": "2.0", "id": message["id"], "result": None})
            elif "id" in message:
                with self._lock:
                    box = self._responses.setdefault(message["id"], queue.Queue())
                box.put(message)
            else:
                self.notifications.put(message)

    def request(self, method: str, params) -> object:
        with self._lock:
            self._next_id += 1
            number = self._next_id
            box = self._responses.setdefault(number, queue.Queue())
        self._send({"jsonrpc": "2.0", "id": number, "method": method, "params": params})
        message = box.get(timeout=WAIT_S)
        if "error" in message:
            raise RuntimeError(f"{method}: {message['error']}")
        return message.get("result")

    def notify(self, method: str, params) -> None:
        self._send({"jsonrpc": "2.0", "method": method, "params": params})

    def wait_for(self, method: str, accept: Callable[[dict], bool] = lambda params: True) -> dict:
        """The params of the next notification ``method`` that ``accept`` takes (others are dropped)."""
        while True:
            message = self.notifications.get(timeout=WAIT_S)
            if message.get("method") == method and accept(message.get("params")):
                return message["params"]

    def diagnostics(self, uri: str, version: Optional[int] = None) -> List[dict]:
        """The next diagnostics published for ``uri`` (for ``version``, when given)."""
        params = self.wait_for("textDocument/publishDiagnostics",
                               lambda p: p["uri"] == uri and (version is None or p.get("version") == version))
        return params["diagnostics"]

    # ---- documents -----------------------------------------------------------------------------

    def open(self, path: Path, text: Optional[str] = None, version: int = 1) -> str:
        uri = path.as_uri()
        self.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "python", "version": version,
            "text": path.read_text(encoding="utf-8") if text is None else text}})
        return uri

    def change(self, uri: str, text: str, version: int) -> None:
        self.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                               "contentChanges": [{"text": text}]})

    def close_document(self, uri: str) -> None:
        self.notify("textDocument/didClose", {"textDocument": {"uri": uri}})

    def code_actions(self, uri: str, start_line: int = 0, end_line: int = 10**6, only=("quickfix",),
                     diagnostics=()) -> List[dict]:
        context = {"diagnostics": list(diagnostics)}
        if only is not None:
            context["only"] = only
        return self.request("textDocument/codeAction", {
            "textDocument": {"uri": uri},
            "range": {"start": {"line": start_line, "character": 0}, "end": {"line": end_line, "character": 0}},
            "context": context,
        }) or []

    def shutdown(self) -> int:
        if self.process.poll() is not None:
            return self.process.returncode
        try:
            self.request("shutdown", None)
            self.notify("exit", None)
            return self.process.wait(timeout=WAIT_S)
        finally:
            if self.process.poll() is None:
                self.process.kill()
                self.process.wait()
            for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
                try:
                    stream.close()
                except OSError:
                    pass


def apply_edits(text: str, edits: List[dict]) -> str:
    """The text after LSP TextEdits (ranges in the text before any of them; UTF-16 columns)."""
    lines = text.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(position: dict) -> int:
        line = position["line"]
        if line >= len(lines):
            return len(text)
        body = lines[line]
        units, index = 0, 0
        while index < len(body) and units < position["character"]:
            units += 2 if ord(body[index]) > 0xFFFF else 1
            index += 1
        return starts[line] + index

    for edit in sorted(edits, key=lambda e: (e["range"]["start"]["line"], e["range"]["start"]["character"]),
                       reverse=True):
        begin, end = offset(edit["range"]["start"]), offset(edit["range"]["end"])
        text = text[:begin] + edit["newText"] + text[end:]
    return text


def action_edits(action: dict, uri: str) -> List[dict]:
    """The TextEdits of a code action for ``uri`` (documentChanges or changes)."""
    edit = action["edit"]
    if "documentChanges" in edit:
        return [e for change in edit["documentChanges"] if change["textDocument"]["uri"] == uri
                for e in change["edits"]]
    return edit["changes"][uri]
