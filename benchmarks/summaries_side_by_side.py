"""The project index's summaries made by two trees of the code in one process, file by file.

    python benchmarks/summaries_side_by_side.py BASE_TREE HEAD_TREE [CORPUS] [--rounds N]

Each tree's ``torchperf_lint`` package is copied under a name of its own (``tpl0``, ``tpl1``: the
package imports itself relatively) into a temporary folder and imported side by side. Every ``.py``
file of CORPUS (default /work/scratch/real) that the index would summarise is parsed once, then
summarised by both trees (``summarize`` and the kept form, ``_frozen_summary``), in an order that
alternates file by file, with the cyclic collector off: CPU seconds of each, so that a machine
shared with other jobs weighs on both alike (two runs one after the other moved by 10 % there).
The parse is not timed. Also printed: whether the two trees' kept summaries marshal to the same
bytes (a change that must not alter them).
"""

from __future__ import annotations

import argparse
import ast
import gc
import hashlib
import importlib
import marshal
import os
import shutil
import sys
import tempfile
import time


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("trees", nargs=2, help="two source trees (each holding torchperf_lint/)")
    parser.add_argument("corpus", nargs="?", default="/work/scratch/real")
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args(argv)
    folder = tempfile.mkdtemp(prefix="tpl-summaries-")
    indexes = []
    for number, tree in enumerate(args.trees):
        target = os.path.join(folder, f"p{number}")
        shutil.copytree(os.path.join(tree, "torchperf_lint"), os.path.join(target, f"tpl{number}"))
        sys.path.insert(0, target)
        indexes.append(importlib.import_module(f"tpl{number}.analysis.project_index"))
    texts = []
    for path, dirs, names in sorted(os.walk(args.corpus)):
        dirs.sort()
        for name in sorted(names):
            if name.endswith(".py"):
                read = indexes[0]._read_summarisable(os.path.join(path, name))
                if read is not None:
                    texts.append(read[0])
    spent = [0.0, 0.0]
    digests = [hashlib.blake2b(), hashlib.blake2b()]
    clock = time.process_time
    gc.disable()
    try:
        for round_number in range(args.rounds):
            for number, text in enumerate(texts):
                try:
                    tree = ast.parse(text)
                except (SyntaxError, ValueError, RecursionError, MemoryError):
                    continue
                for side in ((0, 1) if (number + round_number) % 2 == 0 else (1, 0)):
                    start = clock()
                    kept = indexes[side]._frozen_summary(indexes[side].summarize(tree))
                    spent[side] += clock() - start
                    if round_number == 0:
                        digests[side].update(marshal.dumps(kept))
                del tree
    finally:
        gc.enable()
        shutil.rmtree(folder, ignore_errors=True)
    print(f"files {len(texts)}  rounds {args.rounds}")
    print(f"base {spent[0]:.2f} cpu-s  head {spent[1]:.2f} cpu-s  head / base {spent[1] / spent[0]:.3f}")
    print("kept summaries " + ("byte-identical" if digests[0].digest() == digests[1].digest() else "differ"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
