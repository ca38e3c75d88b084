"""Indentation that mixes tabs and spaces consistently, as Python accepts it (tab stops of eight),
which libcst's tokenizer rejects ("no matching outer block for dedent": FastestDet's ``test.py``,
holdout131): the unit is parsed with its indentation's tabs expanded, its findings keep the file's
own columns, and no fix is offered there (a line a fix writes would be indented with spaces among
the file's tabs)."""

import ast

import libcst as cst
import pytest

from _diagnostics import SYNC_TEMPLATE as SYNC
from torchperf_lint.engine import lint_source

MIXED = (
    "import torch\n"
    "\n"
    "\n"
    "def train(model, loader, opt, path):\n"
    "    names = []\n"
    "    with open(path) as f:\n"
    "\t    for line in f.readlines():\n"
    "\t        names.append(line.strip())\n"
    "    for x in loader:\n"
    "\t    loss = model(x.cuda()).mean()\n"
    "\t    loss.backward()\n"
    "\t    opt.step()\n"
    "\t    print(loss.item())\n"
    "    return torch.zeros(3).cuda()\n"
)


def _diagnostics(source):
    return [(f.code, f.line, f.col, f.message, f.fix) for f in lint_source(source, "train.py")
            if f.code in ("TPL101", "TPL102", "TPL900")]


def test_python_accepts_the_mix_and_libcst_does_not():
    ast.parse(MIXED)
    with pytest.raises(cst.ParserSyntaxError):
        cst.parse_module(MIXED)


def test_findings_of_a_unit_with_tabbed_indentation_keep_the_files_columns():
    found = _diagnostics(MIXED)
    item = SYNC.format(what="`.item()`")
    assert [(code, line, col, message) for code, line, col, message, _ in found] == [
        ("TPL102", 13, 11, item),
        ("TPL101", 14, 11, "tensor is created on the CPU and then copied to the device; pass `device=` to "
                           "`torch.zeros(...)` to create it there (runtime_guard: device-native creation)"),
    ]
    assert all(fix is None for *_, fix in found)  # no edit lands in the tabbed unit
    # the same code indented with spaces only: the same findings, its own columns, and the fix
    spaced = MIXED.replace("\t", " " * 8)
    assert [(c, line, col) for c, line, col, _, _ in _diagnostics(spaced)] == [("TPL102", 13, 18), ("TPL101", 14, 11)]
    assert _diagnostics(spaced)[1][4] is not None
