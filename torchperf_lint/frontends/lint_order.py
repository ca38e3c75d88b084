"""The order a serial CLI run lints its files in: a file whose tree the project index holds, next.

A file's step bodies come from the modules that import it (project_index's importer walk, three
levels up) and from the modules of its classes' bases. Those the index reads ahead of their own
lint it parses, and keeps the trees of the ones that import torch for the engine (up to 8 M
characters of them, oldest out first), so that the engine does not parse the same text again when
it lints that file. Linted in the order the files were found, most of those trees were pushed out
first: over transformers the engine parsed 989 texts a second time (33.5 M characters). Linting
next, while the index holds its tree, each file it parsed ahead, 486 (17.1 M): benchmarks/CLI.md,
2026-11-26 (evening).

The order changes what is parsed when, never what a summary or a walk holds: a summary depends on
a file's text alone, and a walk reads the modules the project's listing names, in the listing's
order. Only the CLI's serial run of ``check``/``--diff`` uses it (``--fix`` writes files, which
later files' walks read: that run keeps the order the files were found in; worker processes take
the biggest files first, for balance, and each has its own index).
"""

from __future__ import annotations

import os
from typing import Dict, Iterator, List, Sequence, TypeVar

T = TypeVar("T")


def serial(items: Sequence[T], path_of) -> Iterator[T]:
    """``items`` (each with a file path: ``path_of(item)``) one at a time, for a serial run that
    lints each before asking for the next: the oldest file whose tree the index parsed ahead and
    still holds, else the next in the order given."""
    from ..analysis.project_index import first_kept_tree

    remaining: Dict[str, List[T]] = {}
    for item in items:
        remaining.setdefault(os.path.abspath(path_of(item)), []).append(item)
    while remaining:
        try:
            chosen = first_kept_tree(remaining)
        except Exception:  # noqa: BLE001 - an order is only a speed-up: never cost the run a file
            chosen = None
        if chosen is None:
            chosen = next(iter(remaining))
        waiting = remaining[chosen]
        item = waiting.pop(0)
        if not waiting:
            del remaining[chosen]
        yield item
