"""The guard's events written to a file at exit, in the linter's formats: JSON with the CLI's
fields (``torchperf-lint check --output-format json``) plus ``count``, ``action``, ``rank``,
``runtime_fix`` and ``steps`` (the optimizer steps of the run), or SARIF 2.1.0 (``.sarif``) for
GitHub code scanning.

``RUNTIME_GUARD_REPORT=PATH`` (or ``python -m runtime_guard --report PATH``) turns it on. Under
torchrun (WORLD_SIZE > 1) every rank writes its own file, the rank before the suffix:
``report.json`` -> ``report.rank0.json``, ``report.rank1.json`` (``{rank}`` in PATH places it
yourself). ``torchperf-lint check --runtime-report report.json`` reads them all and adds them up.
Processes started by ``multiprocessing`` (DataLoader workers) write nothing. Writing never fails
the run: a path that cannot be written gives one warning line.

The builders are the CLI's own (torchperf_lint.frontends.output), so the field names cannot drift apart.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Iterable, List, Optional, Tuple

from torchperf_lint.findings import Finding
from torchperf_lint.frontends.output import Reported, display_path, json_report, sarif

ENV = "RUNTIME_GUARD_REPORT"
# The category GitHub code scanning files these results under, apart from the linter's own upload.
SARIF_CATEGORY = "torchperf-lint-runtime/"

_destination: Optional[str] = None


def set_destination(path: Optional[str]) -> None:
    """Write the report to ``path`` (the runner's ``--report``; wins over the environment)."""
    global _destination
    _destination = path


def destination() -> Optional[str]:
    return _destination or os.environ.get(ENV, "").strip() or None


def _int_env(name: str) -> Optional[int]:
    try:
        return int(os.environ[name])
    except (KeyError, ValueError):
        return None


# (rank, world size) of a process that joined a process group without torchrun's environment
# (``mp.spawn``, ``multiprocessing`` spawn): noted by the guard's ``init_process_group`` wrapper,
# since the group is often destroyed before the report is written at exit.
_joined: Optional[Tuple[int, int]] = None


def note_process_group() -> None:
    """Remember this process's rank and world size (called right after init_process_group)."""
    global _joined
    try:
        import torch.distributed as dist

        if dist.is_available() and dist.is_initialized():
            _joined = (dist.get_rank(), dist.get_world_size())
    except Exception:
        pass


def rank() -> int:
    """The global rank: torchrun's RANK, else the rank this process joined a group with; 0 for a
    single process."""
    value = _int_env("RANK")
    if value is None and _joined is not None:
        return _joined[0]
    return value or 0


def world_size() -> Optional[int]:
    value = _int_env("WORLD_SIZE")
    if value is None and _joined is not None:
        return _joined[1]
    return value


def rank_label() -> Optional[str]:
    """The rank for the printed table's heading (None for a single process)."""
    if "RANK" in os.environ:
        return os.environ["RANK"]
    return str(_joined[0]) if _joined is not None else None


def rank_path(path: str, rank_: int, world_size: Optional[int]) -> str:
    """The file one rank writes: ``{rank}`` in the path is replaced; else with several processes
    the rank goes before the suffix (``report.sarif`` -> ``report.rank1.sarif``)."""
    if "{rank}" in path:
        return path.replace("{rank}", str(rank_))
    if not world_size or world_size <= 1:
        return path
    head, tail = os.path.split(path)
    stem, dot, suffix = tail.rpartition(".")
    if not dot or not stem:
        return os.path.join(head, f"{tail}.rank{rank_}")
    return os.path.join(head, f"{stem}.rank{rank_}.{suffix}")


def is_sarif(path: str) -> bool:
    return path.lower().endswith((".sarif", ".sarif.json"))


def split_location(location: str) -> Tuple[str, int]:
    """``path:line`` -> (path, line); line 0 when there is none."""
    path, sep, line = location.rpartition(":")
    if sep and line.isdigit():
        return path, int(line)
    return location, 0


def _absolute(filename: str) -> str:
    # "<string>", "<stdin>", "<unknown>": no file to point at, kept as they are.
    return filename if filename.startswith("<") else os.path.abspath(filename)


def _rows(events: Iterable[object]) -> List[Tuple[Reported, object]]:
    rows = []
    for event in events:
        filename, line = split_location(str(event.location))
        path = _absolute(filename)
        finding = Finding(str(event.code), line, 0, str(event.detail))
        shown = path if path.startswith("<") else display_path(path)
        rows.append((Reported(path, shown, finding, line), event))
    rows.sort(key=lambda row: (row[0].path, row[0].finding.line, row[0].finding.code,
                               str(row[1].action)))
    return rows


def _runtime_fields(event, rank_: int, steps: Optional[int]) -> dict:
    return {"count": int(event.count), "action": str(event.action), "rank": rank_,
            "runtime_fix": str(getattr(event, "fix", "") or "") or None, "steps": steps}


def json_document(events: Iterable[object], rank_: int = 0, steps: Optional[int] = None) -> str:
    """The CLI's JSON list, one item per event, with the run's fields added."""
    rows = _rows(events)
    items = json.loads(json_report([reported for reported, _ in rows]))
    for item, (_, event) in zip(items, rows):
        item.update(_runtime_fields(event, rank_, steps))
    return json.dumps(items, indent=2) + "\n"


def sarif_message(event) -> str:
    count = int(event.count)
    times = f"{count:,} time{'' if count == 1 else 's'}"
    return f"{event.detail} (runtime_guard: {event.action}, {times})"


def sarif_document(events: Iterable[object], rank_: int = 0, steps: Optional[int] = None) -> str:
    """The CLI's SARIF 2.1.0 run, one result per event that points at a file on disk."""
    rows = [(reported, event) for reported, event in _rows(events)
            if reported.finding.line >= 1 and os.path.isfile(reported.path)]
    shown = [Reported(r.path, r.display, Finding(r.finding.code, r.finding.line, 0,
                                                 sarif_message(event)), r.noqa_row)
             for r, event in rows]
    document = json.loads(sarif(shown))
    run = document["runs"][0]
    run["automationDetails"] = {"id": SARIF_CATEGORY}
    for result, (_, event) in zip(run["results"], rows):
        # The event's own text too: torchperf-lint --runtime-report reads it back from here.
        result["properties"] = {**_runtime_fields(event, rank_, steps), "detail": str(event.detail)}
    return json.dumps(document, indent=2) + "\n"


def _in_child_process() -> bool:
    """Started by multiprocessing (a DataLoader worker, a spawned helper): not the run's report,
    unless it joined a process group (an ``mp.spawn`` rank writes its own rank's file)."""
    if _joined is not None:
        return False
    try:
        import multiprocessing

        return multiprocessing.parent_process() is not None
    except Exception:
        return False


def write(path: str, events: Iterable[object], steps: Optional[int] = None) -> str:
    """Write this process's report; the path written (per rank under torchrun). ``steps``: the
    optimizer steps of the run (the sync report's count, passed down by the guard; None: not
    known); the merge (torchperf_lint.frontends.runtime_report) uses it to tell a sync at every step from
    one per epoch."""
    rank_ = rank()
    target = rank_path(path, rank_, world_size())
    build = sarif_document if is_sarif(target) else json_document
    text = build(events, rank_, steps)
    directory = os.path.dirname(os.path.abspath(target))
    os.makedirs(directory, exist_ok=True)
    temporary = f"{target}.tmp{os.getpid()}"
    try:
        with open(temporary, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(temporary, target)  # a reader never sees half a report
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)
    return target


def _spawned_ranks() -> bool:
    """Did this process's children write per-rank files next to the report (mp.spawn)?"""
    path = destination()
    if not path or world_size():
        return False
    head, tail = os.path.split(rank_path(path, 0, 2))
    return os.path.exists(os.path.join(head, tail))


def write_at_exit(events: Iterable[object], steps: Optional[int] = None) -> None:
    """Called by the guard's exit handler: never raises, one warning line on failure."""
    path = None
    try:
        path = destination()
        if not path or _in_child_process():
            return
        events = list(events)
        if not events and _spawned_ranks():
            # The launcher of mp.spawn ranks: its empty file would hide the ranks' files from
            # `torchperf-lint check --runtime-report PATH`, which reads PATH alone if it exists.
            return
        write(path, events, steps)
    except Exception as exc:
        try:
            print(f"runtime_guard: could not write the report to {path!r}: "
                  f"{type(exc).__name__}: {exc}", file=sys.stderr)
        except Exception:
            pass
