"""Latency of ``torchperf-lint server``: from a ``textDocument/didChange`` to the
``textDocument/publishDiagnostics`` of that version, on a 2,000-line file.

    python benchmarks/server_latency.py [--changes 40] [--kind model|dense|both] [--edits numbers|lines]
                                        [--file PATH] [--project DIR]

The server runs as an editor starts it (a subprocess on stdio, spoken to by the plain JSON-RPC
client of the tests). After the file is opened and its first diagnostics arrive, each change
edits one line inside a different function (a number in a statement, as typing does), sends the
whole text (the server synchronises documents whole) and waits for the diagnostics of that
version before the next change (``--edits lines``: a line break typed after such a statement, and
deleted by the next change). Prints median, p95, min and max in milliseconds; the server
process's CPU time per change (median; from /proc: on a machine shared with other jobs, wall time
includes waiting for a core, CPU time does not); and, in-process over the same edits, the server's
lint of each new text (wall, CPU median and p95: the rest of the server's time is the protocol,
JSON and the switch between the reading loop and the lint thread) and a fresh full lint of it
(``lint_source`` without the server's reuse of the last lint: what each change cost before).
``--project DIR`` copies DIR's files next to the measured file (a project the index reads).

Two generated 2,000-line files (nothing third-party is stored here):
- ``model``: a training module as projects write them: nn.Module blocks and a model, a dataset,
  helpers, argument parsing, and a train and an evaluation loop (some findings);
- ``dense``: the worst case: every function is a piece of training code from tests/spec_cases
  (each one a step loop or a pitfall the rules look at closely), 120-odd of them in one file.
Target (issue 23): median at most 100 ms on a 2,000-line file; benchmarks/SERVER.md has the runs.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import textwrap
import time
from pathlib import Path
from typing import Optional

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO / "tests" / "server"))
LINES = 2000


def model_module(lines: int = LINES) -> str:
    """A 2,000-line training module: blocks, a model, a dataset, helpers, train and eval loops."""
    head = textwrap.dedent('''\
        """A training module (generated for the server latency benchmark)."""
        import argparse
        import math
        import os

        import numpy as np
        import torch
        import torch.nn as nn
        import torch.nn.functional as F
        from torch.utils.data import DataLoader, Dataset
        ''').splitlines()
    block = textwrap.dedent('''\

        class Block{i}(nn.Module):
            """Conv, norm and activation, with a residual path ({i})."""

            def __init__(self, channels: int = {c}, expansion: int = 4):
                super().__init__()
                hidden = channels * expansion
                self.conv1 = nn.Conv2d(channels, hidden, 1, bias=False)
                self.bn1 = nn.BatchNorm2d(hidden)
                self.conv2 = nn.Conv2d(hidden, hidden, 3, padding=1, groups=hidden, bias=False)
                self.bn2 = nn.BatchNorm2d(hidden)
                self.conv3 = nn.Conv2d(hidden, channels, 1, bias=False)
                self.bn3 = nn.BatchNorm2d(channels)
                self.scale = nn.Parameter(torch.ones(1) * {s})

            def forward(self, x: torch.Tensor) -> torch.Tensor:
                residual = x
                x = F.gelu(self.bn1(self.conv1(x)))
                x = F.gelu(self.bn2(self.conv2(x)))
                x = self.bn3(self.conv3(x))
                return residual + self.scale * x


        def helper_{i}(values, factor: float = {s}):
            """Scale and clip a list of numbers ({i})."""
            out = []
            for value in values:
                value = value * factor
                if value > {c}:
                    value = {c}
                out.append(round(value, 3))
            return out
        ''')
    tail = textwrap.dedent('''\

        class RandomImages(Dataset):
            def __init__(self, n: int = 1024, size: int = 32):
                self.n, self.size = n, size

            def __len__(self):
                return self.n

            def __getitem__(self, index):
                image = np.random.rand(3, self.size, self.size).astype("float32")
                return torch.from_numpy(image), index % 10


        class Model(nn.Module):
            def __init__(self, blocks: int = 8, channels: int = 32, classes: int = 10):
                super().__init__()
                self.stem = nn.Conv2d(3, channels, 3, padding=1)
                self.body = nn.Sequential(*[Block0(channels) for _ in range(blocks)])
                self.head = nn.Linear(channels, classes)

            def forward(self, x):
                x = self.body(self.stem(x))
                return self.head(x.mean(dim=(2, 3)))


        def parse_args(argv=None):
            parser = argparse.ArgumentParser()
            parser.add_argument("--epochs", type=int, default=10)
            parser.add_argument("--lr", type=float, default=3e-4)
            parser.add_argument("--batch-size", type=int, default=64)
            return parser.parse_args(argv)


        def train(args):
            device = torch.device("cuda")
            model = Model().to(device)
            optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
            loader = DataLoader(RandomImages(), batch_size=args.batch_size, shuffle=True)
            for epoch in range(args.epochs):
                total = 0.0
                for step, (images, labels) in enumerate(loader):
                    images, labels = images.to(device), labels.to(device)
                    loss = F.cross_entropy(model(images), labels)
                    optimizer.zero_grad()
                    loss.backward()
                    optimizer.step()
                    total += loss.item()
                print(f"epoch {epoch}: {total / len(loader):.4f}")
            return model


        def evaluate(model, loader, device):
            model.eval()
            correct = 0
            for images, labels in loader:
                logits = model(images.to(device))
                correct += (logits.argmax(1).cpu() == labels).sum().item()
            return correct / len(loader.dataset)


        if __name__ == "__main__":
            train(parse_args())
        ''').splitlines()
    out = list(head)
    i = 0
    while True:
        chunk = block.format(i=i, c=16 + i % 48, s=1 + (i % 7) / 10).splitlines()
        if len(out) + len(chunk) + len(tail) > lines:
            break
        out.extend(chunk)
        i += 1
    out.extend(tail)
    out.extend(["# end of module"] * (lines - len(out)))
    return "\n".join(out) + "\n"


def dense_module(lines: int = LINES) -> str:
    """Every tests/spec_cases snippet without a docstring, each wrapped in a function."""
    imports, bodies = set(), []
    for path in sorted((REPO / "tests" / "spec_cases").glob("*.py")):
        source = path.read_text(encoding="utf-8")
        if '"""' in source or "'''" in source:
            continue  # an indented docstring would change its value; skip those
        rows = source.splitlines()
        imports.update(r for r in rows if r.startswith(("import ", "from ")) and "__future__" not in r)
        bodies.append("\n".join(r for r in rows if not r.startswith(("import ", "from "))))
    out = sorted(imports)
    k = 0
    while True:
        body = textwrap.indent(bodies[k % len(bodies)], "    ").splitlines() or ["    pass"]
        section = ["", f"def section_{k}():", *body, "    return None"]
        if len(out) + len(section) > lines:
            break
        out.extend(section)
        k += 1
    out.extend(["# end of module"] * (lines - len(out)))
    return "\n".join(out) + "\n"


def edit_points(text: str):
    """Line numbers (0-based) of statements inside functions that end in a number: a change
    there keeps the file valid (``x = 16`` -> ``x = 17``)."""
    import re

    rows = text.splitlines()
    return [i for i, row in enumerate(rows) if row.startswith("        ") and re.search(r"\b\d+\)?$", row)
            and not row.rstrip().endswith(("\\", ",", "("))]


def bump(row: str, n: int) -> str:
    import re

    return re.sub(r"(\d+)(\)?)$", lambda m: str(int(m.group(1)) + n) + m.group(2), row)


def process_cpu_ms(pid: int) -> float:
    """User + system CPU time of a process so far (Linux /proc; NaN elsewhere)."""
    import os

    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return float("nan")


def edited_texts(text: str, changes: int, edits: str = "numbers"):
    """The texts the benchmark sends: each one number edited in a different function
    (``numbers``), or a line break typed after such a statement and deleted by the next change
    (``lines``: every line below moves, each second change)."""
    rows = text.splitlines(keepends=True)
    points = edit_points(text)
    for n in range(changes):
        line = points[(n * 7919) % len(points)]  # spread over the file
        if edits == "lines":
            yield "".join(rows[:line + 1] + ["\n"] + rows[line + 1:])
            if n + 1 < changes:
                yield "".join(rows)
            continue
        rows[line] = bump(rows[line].rstrip("\n"), 1) + "\n"
        yield "".join(rows)


def lint_alone(kind: str, text: str, changes: int, project: Optional[Path] = None, edits: str = "numbers") -> dict:
    """In-process, over the same edits: the server's lint of each new text (reusing the last one's,
    analysis/edit_reuse.py) and a fresh full lint of it (what the server did before), CPU ms.

    Each in a project folder of its own, made here: the project index keeps a module's summary by
    the digest of its text (in memory and on disk), and a text that the server or the other lint
    had summarised already would cost less than a text an editor sends for the first time."""
    from torchperf_lint.frontends.runner import analyse
    from torchperf_lint.frontends.server import Projects, lint_text

    with tempfile.TemporaryDirectory() as server_tmp, tempfile.TemporaryDirectory() as fresh_tmp:
        server_path = project_folder(Path(server_tmp), kind, text, project)
        fresh_path = project_folder(Path(fresh_tmp), kind, text, project)
        projects = Projects()
        result, _ = lint_text(projects, server_path, text, 1, None)
        analyse(text, str(fresh_path), result.codes, result.line_length)
        server_wall, server_cpu, full_cpu = [], [], []
        for version, new_text in enumerate(_first(edited_texts(text, changes, edits), changes), start=2):
            start, start_cpu = time.perf_counter(), time.process_time()
            lint_text(projects, server_path, new_text, version, None)
            server_wall.append((time.perf_counter() - start) * 1000)
            server_cpu.append((time.process_time() - start_cpu) * 1000)
            start_cpu = time.process_time()
            analyse(new_text, str(fresh_path), result.codes, result.line_length)
            full_cpu.append((time.process_time() - start_cpu) * 1000)
    return {"wall": server_wall, "cpu": server_cpu, "full_cpu": full_cpu}


def _first(texts, count: int):
    """The first ``count`` of ``texts``."""
    for _, text in zip(range(count), texts):
        yield text


def project_folder(root: Path, kind: str, text: str, project: Optional[Path] = None) -> Path:
    """``root`` made a project holding the measured file (and ``project``'s files): its path."""
    if project is not None:  # the file among a real project's modules (the index reads them)
        shutil.copytree(project, root, dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns(".git", ".torchperf_lint_cache", "__pycache__"))
    (root / "pyproject.toml").write_text('[project]\nname = "bench"\n', encoding="utf-8")
    path = root / f"{kind}.py"
    path.write_text(text, encoding="utf-8")
    return path


def measure(kind: str, text: str, changes: int, project: Optional[Path] = None, edits: str = "numbers") -> dict:
    from lsp_client import LspClient

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        path = project_folder(root, kind, text, project)
        client = LspClient(root)
        try:
            uri = client.open(path, text)
            first = client.diagnostics(uri, 1)
            latencies, cpu = [], []
            for version, new_text in enumerate(_first(edited_texts(text, changes, edits), changes), start=2):
                start, start_cpu = time.perf_counter(), process_cpu_ms(client.process.pid)
                client.change(uri, new_text, version)
                client.diagnostics(uri, version)
                latencies.append((time.perf_counter() - start) * 1000)
                cpu.append(process_cpu_ms(client.process.pid) - start_cpu)
        finally:
            client.shutdown()
    alone = lint_alone(kind, text, changes, project, edits)
    latencies.sort()
    return {
        "kind": kind, "lines": text.count("\n"), "findings": len(first), "changes": changes,
        "median": statistics.median(latencies), "p95": percentile(latencies, 0.95),
        "min": latencies[0], "max": latencies[-1], "server_cpu_median": statistics.median(cpu),
        "lint_alone_median": statistics.median(alone["wall"]),
        "lint_alone_cpu_median": statistics.median(alone["cpu"]),
        "lint_alone_cpu_p95": percentile(sorted(alone["cpu"]), 0.95),
        "full_lint_cpu_median": statistics.median(alone["full_cpu"]),
    }


def percentile(ordered: list, fraction: float) -> float:
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--changes", type=int, default=40)
    parser.add_argument("--kind", choices=("model", "dense", "both"), default="both")
    parser.add_argument("--file", type=Path, help="measure this file instead of a generated one")
    parser.add_argument("--edits", choices=("numbers", "lines"), default="numbers",
                        help="numbers: a number edited per change (the target's measure); lines: a line break "
                             "typed and deleted in turn (every line below moves)")
    parser.add_argument("--project", type=Path,
                        help="copy this folder's files next to the measured file (a project the index reads)")
    args = parser.parse_args()
    cases = []
    if args.file is not None:
        cases.append((args.file.stem, args.file.read_text(encoding="utf-8")))
    else:
        if args.kind in ("model", "both"):
            cases.append(("model", model_module()))
        if args.kind in ("dense", "both"):
            cases.append(("dense", dense_module()))
    import os

    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"python {sys.version.split()[0]}; {os.cpu_count()} cores, load average {load:.1f} at the start; "
          f"{args.changes} changes per file ({args.edits}){'; project ' + str(args.project) if args.project else ''}; "
          f"times in ms")
    print("  server: didChange to publishDiagnostics, wall (median, p95, min, max) and the server process's CPU;")
    print("  in-process over the same edits: the server's lint (wall, CPU median and p95) and a fresh full lint (CPU);")
    print("  load: the load average when the file's runs ended")
    print(f"{'file':<8} {'lines':>5} {'findings':>8} {'median':>7} {'p95':>7} {'min':>7} {'max':>7} "
          f"{'srv cpu':>7} {'lint':>7} {'lint cpu':>8} {'cpu p95':>7} {'full cpu':>8} {'load':>5}")
    for kind, text in cases:
        r = measure(kind, text, args.changes, args.project, args.edits)
        print(f"{r['kind']:<8} {r['lines']:>5} {r['findings']:>8} {r['median']:>7.1f} {r['p95']:>7.1f} "
              f"{r['min']:>7.1f} {r['max']:>7.1f} {r['server_cpu_median']:>7.1f} {r['lint_alone_median']:>7.1f} "
              f"{r['lint_alone_cpu_median']:>8.1f} {r['lint_alone_cpu_p95']:>7.1f} {r['full_lint_cpu_median']:>8.1f} "
              f"{os.getloadavg()[0] if hasattr(os, 'getloadavg') else float('nan'):>5.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
