"""Property tests (Hypothesis): random training code, and the same code written oddly.

The programs come from a small grammar of training-code fragments (factories then moves, loops over
loaders with ``.item()``, autocast and GradScaler, DataLoader calls, cuDNN flags, f-strings), laid
out with odd but valid Python: tabs, 2- or 8-space indents, form feeds in the indentation, comments,
line continuations, CRLF line ends, a BOM, a latin-1 coding cookie. For every program:

- ``lint_source`` never raises and never gives up (no TPL900 on valid Python);
- the CLI on the file never crashes, and ``--fix`` leaves a file that compiles;
- ``fix_source`` output parses, and fixing it again changes nothing;
- each fix changes only its edit spans: everything outside them is kept byte for byte, and no
  comment is lost;
- CRLF and a BOM change nothing but themselves: fixing the CRLF (or BOM) variant gives the CRLF
  (or BOM) variant of the fixed plain program.

Reproducible in CI: the default profile ``ci`` is derandomized (the same examples every run) with
a bounded ``max_examples``. ``TPL_HYPOTHESIS_PROFILE=dev`` explores more (random, 500 examples);
``mutation`` is the small profile benchmarks/mutation.py uses.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from typing import List, Tuple

import os

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, event, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from torchperf_lint.catalog import CATALOG  # noqa: E402
from torchperf_lint.engine import fix_source, lint_source  # noqa: E402
from torchperf_lint.fixing.fixer import apply_fixes  # noqa: E402
from torchperf_lint.frontends.cli import main as cli_main  # noqa: E402

_COMMON = dict(deadline=None, database=None, print_blob=True,
               suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                      HealthCheck.function_scoped_fixture])
settings.register_profile("ci", max_examples=40, derandomize=True, **_COMMON)
settings.register_profile("mutation", max_examples=10, derandomize=True, **_COMMON)
settings.register_profile("dev", max_examples=500, **_COMMON)
PROFILE = os.environ.get("TPL_HYPOTHESIS_PROFILE", "ci")

ALL = list(CATALOG)

# ---- the grammar ----------------------------------------------------------------------------------
# A program is a list of logical lines (indent level, text); a text with "\n" is a statement that
# spans lines (its continuation lines are indented one level deeper than the statement).

FACTORIES = ["torch.zeros(4)", "torch.ones(2, 3)", "torch.rand(8)", "torch.randn(2, 2)",
             "torch.arange(10)", "torch.full((3,), 0.5)", "torch.tensor([1.0, 2.0])",
             "torch.eye(3, dtype=torch.float16)", "torch.zeros(n, requires_grad=True)"]
OPS = ["", "", ".float()", ".view(-1)", ".long().view(1, -1)", ".t()"]
MOVES = [".to(device)", ".cuda()", ".to(device, non_blocking=True)", '.to("cuda")', ".cpu()",
         ".to(torch.float16)", ".to(x.device)", ".cuda(non_blocking=True)"]

Line = Tuple[int, str]


@st.composite
def factory_move(draw, level: int) -> List[Line]:
    name = draw(st.sampled_from(["mask", "noise", "w", "buf"]))
    factory, ops, move = draw(st.sampled_from(FACTORIES)), draw(st.sampled_from(OPS)), draw(st.sampled_from(MOVES))
    form = draw(st.integers(0, 3))
    if form == 0:
        return [(level, f"{name} = {factory}{ops}{move}")]
    if form == 1:  # two statements
        return [(level, f"{name} = {factory}{ops}"), (level, f"{name} = {name}{move}")]
    if form == 2:  # a line continuation before the move
        return [(level, f"{name} = {factory}{ops} \\\n{move}")]
    return [(level, f"{name} = ({factory}{ops}\n{move})")]


@st.composite
def loader_call(draw, level: int) -> List[Line]:
    kwargs = ["batch_size=32"]
    for option in ("shuffle=True", "num_workers=4", "pin_memory=True", "drop_last=True", "sampler=sampler"):
        if draw(st.booleans()):
            kwargs.append(option)
    if draw(st.booleans()):
        inner = ",\n".join(["dataset"] + kwargs) + (",\n" if draw(st.booleans()) else "\n")
        return [(level, f"loader = DataLoader(\n{inner})")]
    return [(level, f"loader = DataLoader(dataset, {', '.join(kwargs)})")]


SETUP = [
    "torch.backends.cudnn.benchmark = True",
    "torch.backends.cudnn.deterministic = True",
    "torch.use_deterministic_algorithms(True)",
    "scaler = torch.cuda.amp.GradScaler()",
    "scaler = torch.amp.GradScaler(\"cuda\")",
    "model = nn.DataParallel(model)",
    "model = model.to(device)",
    "model.eval()",
    "sampler = DistributedSampler(dataset)",
    "torch.autograd.set_detect_anomaly(True)",
]
STEP = [
    "x, y = x.to(device), y.to(device)",
    "x = x.cuda()",
    "loss = model(x).sum()",
    "loss.backward()",
    "scaler.scale(loss).backward()",
    "scaler.step(optimizer)",
    "scaler.update()",
    "optimizer.step()",
    "optimizer.zero_grad(set_to_none=False)",
    "total += loss.item()",
    "print(loss)",
    "print(f\"step {step}: {loss.item():.3f} {x.shape}\")",
    "print(f\"{stats['loss']!r:>10}\")",
    "value = float(loss)",
    "torch.cuda.empty_cache()",
    "torch.cuda.synchronize()",
    "losses.append(loss.detach())",
    "nn.utils.clip_grad_norm_(model.parameters(), 1.0)",
]


@st.composite
def step_block(draw, level: int) -> List[Line]:
    lines: List[Line] = []
    for _ in range(draw(st.integers(1, 6))):
        choice = draw(st.integers(0, 9))
        if choice == 0:
            lines += draw(factory_move(level))
        elif choice == 1:
            lines += [(level, "if step % 10 == 0:"), (level + 1, draw(st.sampled_from(STEP)))]
        elif choice == 2:
            lines += [(level, "with torch.cuda.amp.autocast():"), (level + 1, "loss = model(x).sum()")]
        elif choice == 3:
            lines += [(level, "while loss > 1:"), (level + 1, "loss = loss / 2")]
        else:
            lines.append((level, draw(st.sampled_from(STEP))))
    return lines


@st.composite
def program(draw) -> List[Line]:
    lines: List[Line] = [(0, "import torch"), (0, "import torch.nn as nn"),
                         (0, "from torch.utils.data import DataLoader, DistributedSampler")]
    if draw(st.booleans()):
        lines.append((0, "from torch.cuda.amp import autocast, GradScaler"))
    for _ in range(draw(st.integers(0, 2))):
        lines.append((0, draw(st.sampled_from(SETUP[:3]))))
    lines.append((0, "def train(model, dataset, optimizer, device, n, stats):"))
    body: List[Line] = [(1, "total = 0.0"), (1, "losses = []")]
    for _ in range(draw(st.integers(0, 3))):
        body.append((1, draw(st.sampled_from(SETUP))))
    if draw(st.booleans()):
        body += draw(loader_call(1))
    body += draw(factory_move(1)) if draw(st.booleans()) else []
    loop = draw(st.sampled_from(["for step, (x, y) in enumerate(loader):", "for x, y in loader:",
                                 "for step in range(n):"]))
    if draw(st.booleans()):
        body += [(1, "for epoch in range(n):"), (2, loop)] + draw(step_block(3))
    else:
        body += [(1, loop)] + draw(step_block(2))
    body.append((1, "return total, losses"))
    return lines + body


# ---- odd but valid layouts -----------------------------------------------------------------------

# What goes before a line's indentation at a form feed. Python resets the indentation count at a
# form feed wherever it stands in the indentation (spaces before it included): the engine counts
# indentation as the tokenizer does (issue 21 item 3).
FORM_FEED_PREFIXES = ("\x0c", " \x0c")


@dataclass(frozen=True)
class Layout:
    indent: str = "    "
    form_feeds: Tuple[int, ...] = ()  # logical lines that get a form feed in their indentation
    form_feed: str = "\x0c"
    comments: Tuple[int, ...] = ()  # logical lines that get a trailing comment
    comment_lines: Tuple[int, ...] = ()  # logical lines preceded by a comment line
    trailing_spaces: bool = False
    blank_lines: Tuple[int, ...] = ()


layouts = st.builds(
    Layout,
    indent=st.sampled_from(["    ", "  ", "\t", "        ", " \t"]),
    form_feeds=st.lists(st.integers(0, 40), max_size=3).map(tuple),
    form_feed=st.sampled_from(FORM_FEED_PREFIXES),
    comments=st.lists(st.integers(0, 40), max_size=4).map(tuple),
    comment_lines=st.lists(st.integers(0, 40), max_size=3).map(tuple),
    trailing_spaces=st.booleans(),
    blank_lines=st.lists(st.integers(0, 40), max_size=3).map(tuple),
)


def render(lines: List[Line], layout: Layout = Layout()) -> str:
    out = []
    for index, (level, text) in enumerate(lines):
        indent = layout.indent * level
        if index in layout.blank_lines:
            out.append(" \t" if layout.trailing_spaces else "")
        if index in layout.comment_lines:
            out.append(f"{indent}# note {index}: torch.zeros(3).cuda() in a comment")
        if index in layout.form_feeds and level:
            indent = layout.form_feed + indent
        first, *rest = text.split("\n")
        tail = f"  # why {index}" if index in layout.comments and "\\" not in first and not rest else ""
        space = " " if layout.trailing_spaces and not tail and not first.endswith("\\") else ""
        out.append(f"{indent}{first}{tail}{space}")
        for part in rest:
            out.append(f"{layout.indent * (level + 1)}{part}" if part.strip() else part)
    return "\n".join(out) + "\n"


# ---- checks --------------------------------------------------------------------------------------

def _python_lines(text: str) -> List[str]:
    """Lines as Python counts them (\\r\\n, \\r, \\n), ends kept: not str.splitlines, which also
    splits at form feeds."""
    return re.findall(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$", text)


def _offset(lines: List[str], line: int, col: int) -> int:
    return sum(len(l) for l in lines[:line - 1]) + col


def _comments(text: str) -> List[str]:
    return sorted(tok.string for tok in tokenize.generate_tokens(io.StringIO(text).readline)
                  if tok.type == tokenize.COMMENT)


def check_lints(source: str) -> list:
    findings = lint_source(source, codes=ALL)
    failed = [f for f in findings if f.code == "TPL900"]
    assert not failed, f"gave up on valid Python: {failed[0].message}\n{source}"
    return findings


def check_fixes_keep_the_rest(source: str, findings) -> None:
    """Each fix alone changes only its edit spans (positions counted as Python counts lines)."""
    lines = _python_lines(source)
    for finding in findings:
        if finding.fix is None or not finding.fix.edits:
            continue
        spans = sorted((_offset(lines, e.line, e.col), _offset(lines, e.end_line, e.end_col), e.content)
                       for e in finding.fix.edits)
        expected, position = [], 0
        for begin, end, content in spans:
            assert position <= begin <= end <= len(source), (finding, spans)
            expected += [source[position:begin], content]
            position = end
        expected.append(source[position:])
        fixed, applied = apply_fixes(source, [finding.fix])
        assert applied == [0]
        assert fixed == "".join(expected)
        ast.parse(fixed.lstrip("\ufeff"))
        assert _comments(fixed.lstrip("\ufeff")) == _comments(source.lstrip("\ufeff")), finding


def check_fix_source(source: str) -> Tuple[str, str]:
    results = []
    for unsafe in (False, True):
        fixed, count = fix_source(source, codes=ALL, unsafe=unsafe)
        ast.parse(fixed.lstrip("\ufeff"))
        assert fix_source(fixed, codes=ALL, unsafe=unsafe) == (fixed, 0), "a second fix run changed the text"
        assert _comments(fixed.lstrip("\ufeff")) == _comments(source.lstrip("\ufeff"))
        if count == 0:
            assert fixed == source
        results.append(fixed)
    return results[0], results[1]


# ---- the properties ------------------------------------------------------------------------------

@settings(settings.get_profile(PROFILE))
@given(program(), layouts)
def test_any_layout_lints_and_fixes_cleanly(lines, layout):
    source = render(lines, layout)
    compile(source, "<generated>", "exec")  # the generator's promise: valid Python
    findings = check_lints(source)
    event(f"fixes offered: {min(sum(f.fix is not None for f in findings), 3)}+")
    for code in sorted({f.code for f in findings}):
        event(f"finding {code}")
    check_fixes_keep_the_rest(source, findings)
    check_fix_source(source)


@settings(settings.get_profile(PROFILE))
@given(program(), st.sampled_from(["crlf", "bom", "bom+crlf"]))
def test_crlf_and_bom_change_nothing_but_themselves(lines, variant):
    plain = render(lines)
    text = plain.replace("\n", "\r\n") if "crlf" in variant else plain
    text = "\ufeff" + text if "bom" in variant else text
    plain_findings = [(f.code, f.line, f.col, f.message) for f in check_lints(plain)]
    findings = check_lints(text)
    assert [(f.code, f.line, f.col, f.message) for f in findings] == plain_findings
    check_fixes_keep_the_rest(text, findings)
    for fixed_plain, fixed in zip(check_fix_source(plain), check_fix_source(text)):
        expected = fixed_plain.replace("\n", "\r\n") if "crlf" in variant else fixed_plain
        expected = "\ufeff" + expected if "bom" in variant else expected
        assert fixed == expected


def test_spaces_then_form_feed_is_analysed():
    lines = [(0, "import torch"), (0, "def train(device):"), (1, "total = 0.0"),
             (1, "mask = torch.zeros(4).to(device)"), (1, "return total, mask")]
    source = render(lines, Layout(form_feeds=(2,), form_feed=" \x0c"))
    assert source.count(" \x0c    ") == 1
    findings = check_lints(source)
    assert [(f.code, f.line, f.col) for f in findings] == [("TPL101", 4, 11)]
    check_fixes_keep_the_rest(source, findings)
    check_fix_source(source)


def _cli(args) -> Tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = cli_main(list(args))
    return code, out.getvalue() + err.getvalue()


@settings(settings.get_profile(PROFILE))
@given(program(), layouts, st.sampled_from(["utf-8", "utf-8-sig", "latin-1", "crlf"]))
def test_cli_on_a_file_never_crashes_and_fix_compiles(tmp_path, lines, layout, encoding):
    source = render(lines, layout)
    if encoding == "latin-1":
        # A coding cookie, and a byte that is not UTF-8 in a comment and a string.
        source = "# -*- coding: latin-1 -*-\n" + source + "label = \"d\xe9j\xe0 vu\"  # \xe9t\xe9\n"
        data = source.encode("latin-1")
    elif encoding == "crlf":
        data = source.replace("\n", "\r\n").encode("utf-8")
    else:
        data = source.encode(encoding)
    path = tmp_path / "train.py"
    path.write_bytes(data)
    code, output = _cli(["check", "--no-cache", "-j", "1", "--select", ",".join(ALL), str(path)])
    assert code in (0, 1), output
    assert "TPL900" not in output and "Traceback" not in output, output
    for extra in ([], ["--unsafe-fixes"]):
        code, output = _cli(["check", "--no-cache", "-j", "1", "--select", ",".join(ALL), "--fix", *extra, str(path)])
        assert code in (0, 1), output
        assert "Traceback" not in output, output
        fixed = path.read_bytes()
        compile(fixed, str(path), "exec")  # bytes: Python reads the BOM and the cookie itself
        if encoding in ("utf-8-sig", "latin-1", "crlf"):
            # What marks the file's encoding and line ends survives the fix.
            assert fixed.startswith(data[:3]) if encoding == "utf-8-sig" else True
            assert fixed.startswith(b"# -*- coding: latin-1 -*-") if encoding == "latin-1" else True
            assert (b"\n" not in fixed.replace(b"\r\n", b"")) if encoding == "crlf" else True
        path.write_bytes(data)
