"""Cases for the mutants that survived the mutation run of 2026-11-26 (benchmarks/mutation.py).

Like tests/test_mutation_gaps.py (the earlier runs' cases), each test asserts whole diagnostics or
whole outputs: code, position, message and the fix (applicability, description, edits) or its
absence; for the fixer and line helpers, the exact fixed text. docs/testing.md lists the survivors
judged equivalent, with the reason.
"""

from __future__ import annotations

import textwrap

from torchperf_lint.catalog import CATALOG, SAFE, UNSAFE
from torchperf_lint.engine import fix_source
from torchperf_lint.findings import Edit
from torchperf_lint.rules import RULES
from _diagnostics import all_diagnostics as diagnostics

ALL = list(CATALOG)
TPL104_MESSAGE = RULES["TPL104"].message
ADD_NON_BLOCKING = (SAFE, "add non_blocking=True")




# ---- TPL104: a staging buffer the loop refills gets no fix -----------------------------------------

def test_tpl104_staging_buffer_written_in_the_loop_gets_no_fix():
    # A non-blocking copy from a buffer that the next round overwrites (out=, a slice assignment, an
    # in-place method) races the refill; a name the loop binds afresh first, or a buffer the loop
    # never writes, is safe to copy asynchronously. Writes to another tensor do not count.
    source = """\
    import torch
    from torch.utils.data import DataLoader
    loader = DataLoader(ds, batch_size=64, num_workers=4, pin_memory=True)
    def by_out(model, device, other):
        buf = next(iter(loader))
        for x, y in loader:
            torch.add(x, y, out=other)
            torch.cat([x, y], out=buf)
            model(buf.to(device)).sum().backward()
    def by_slice(model, device):
        buf = next(iter(loader))
        for x, y in loader:
            buf[:8] = x
            model(buf.cuda()).sum().backward()
    def by_inplace(model, device):
        buf = next(iter(loader))
        for x, y in loader:
            buf.mul_(0.5)
            model(buf.to(device)).sum().backward()
    def rebound_first(model, device):
        buf = next(iter(loader))
        for x, y in loader:
            buf = x
            buf[:8] = y
            model(buf.to(device)).sum().backward()
    def annotated(model, device):
        for x, y in loader:
            buf: torch.Tensor = x
            model(buf.to(device)).sum().backward()
    def other_written(model, device, other):
        buf = next(iter(loader))
        for x, y in loader:
            other[:8] = x
            other += y
            other.copy_(x); torch.add(x, y, out=other)
            model(buf.to(device)).sum().backward()
    def in_tuple(model, device):
        buf = next(iter(loader))
        for x, y in loader:
            p, buf[0] = x, y
            model(buf.to(device)).sum().backward()
    """

    def fixed(line: int, col: int):
        return (TPL104_MESSAGE, (*ADD_NON_BLOCKING, (Edit(line, col, line, col, ", non_blocking=True"),)))

    assert diagnostics(source, "TPL104") == [
        ("TPL104", 9, 14, TPL104_MESSAGE, None),
        ("TPL104", 14, 14, TPL104_MESSAGE, None),
        ("TPL104", 19, 14, TPL104_MESSAGE, None),
        ("TPL104", 25, 14, *fixed(25, 27)),
        ("TPL104", 29, 14, *fixed(29, 27)),
        ("TPL104", 36, 14, *fixed(36, 27)),
        ("TPL104", 41, 14, TPL104_MESSAGE, None),
    ]


# ---- fixing/fixer.py: apply_fixes and fix_loop on their own ----------------------------------------

def test_apply_fixes_at_the_end_of_the_file_and_past_it():
    from torchperf_lint.fixing.fixer import apply_fixes
    from torchperf_lint.findings import Fix

    # The position after the last line (line n + 1, column 0) is the end of the text; a line past
    # that is clamped to it rather than raising.
    assert apply_fixes("x = 1\n", [Fix(SAFE, "d", (Edit(2, 0, 2, 0, "y = 2\n"),))]) == ("x = 1\ny = 2\n", [0])
    assert apply_fixes("x = 1\n", [Fix(SAFE, "d", (Edit(5, 0, 5, 0, "y = 2\n"),))]) == ("x = 1\ny = 2\n", [0])
    assert apply_fixes("x = 1", [Fix(SAFE, "d", (Edit(1, 5, 1, 5, "\n"),))]) == ("x = 1\n", [0])
    # Lines as Python counts them: a form feed does not end one.
    assert apply_fixes("a\x0cb\ncd\n", [Fix(SAFE, "d", (Edit(2, 0, 2, 1, "C"),))]) == ("a\x0cb\nCd\n", [0])


def test_apply_fixes_adjacent_edits_both_apply_and_order_does_not_matter():
    from torchperf_lint.fixing.fixer import apply_fixes
    from torchperf_lint.findings import Fix

    first = Fix(SAFE, "1", (Edit(1, 0, 1, 1, "A"),))
    second = Fix(SAFE, "2", (Edit(1, 1, 1, 2, "B"),))
    inside = Fix(SAFE, "3", (Edit(1, 1, 1, 1, "-"),))  # inserts where `second` starts: a conflict
    assert apply_fixes("ab\ncd\n", [first, second]) == ("AB\ncd\n", [0, 1])
    assert apply_fixes("ab\ncd\n", [second, first]) == ("AB\ncd\n", [0, 1])
    # Overlaps are settled by position (the earlier span wins), not by the order of the list.
    wide = Fix(SAFE, "4", (Edit(1, 0, 2, 1, "X"),))
    assert apply_fixes("ab\ncd\n", [second, wide]) == ("Xd\n", [1])
    assert apply_fixes("ab\ncd\n", [second, inside]) == ("a-b\ncd\n", [1])
    # Two fixes inserting at one point: the one found first wins, whatever their texts.
    later = Fix(SAFE, "b", (Edit(1, 0, 1, 0, "b"),))
    earlier = Fix(SAFE, "a", (Edit(1, 0, 1, 0, "a"),))
    assert apply_fixes("x\n", [later, earlier]) == ("bx\n", [0])
    assert apply_fixes("x\n", [earlier, later]) == ("ax\n", [0])
    # A fix with no edits is never applied; the others still are.
    assert apply_fixes("ab\n", [Fix(SAFE, "0", ()), first]) == ("Ab\n", [1])
    # The two edits of one fix never conflict with each other; text between them is kept.
    both = Fix(SAFE, "5", (Edit(2, 1, 2, 2, "D"), Edit(1, 0, 1, 0, "# ")))
    assert apply_fixes("ab\ncd\n", [both]) == ("# ab\ncD\n", [0])


def _scripted(rounds):
    """An ``analyse`` for fix_loop: the findings for each source text, and a log of its calls."""
    calls = []

    def analyse(text):
        calls.append(text)
        return (rounds.get(text, []), f"analysis of {text!r}")

    return analyse, calls


def _finding(code, description, edit, applicability=SAFE):
    from torchperf_lint.findings import Finding, Fix
    return Finding(code, edit.line, edit.col, "m", fix=Fix(applicability, description, (edit,)))


def test_fix_loop_applies_round_after_round_and_reports_each_fix():
    from torchperf_lint.fixing.fixer import fix_loop
    from torchperf_lint.findings import Finding

    # Round 1 fixes two findings (one safe, one unsafe); the result shows a third, fixed in round 2.
    # An unsafe fix waits for unsafe=True; a finding without a fix is never counted.
    rounds = {
        "a = 1\nb = 2\n": [
            _finding("TPL101", "one", Edit(1, 0, 1, 1, "A")),
            _finding("TPL102", "two", Edit(2, 0, 2, 1, "B"), UNSAFE),
            Finding("TPL103", 1, 0, "m"),
        ],
        "A = 1\nB = 2\n": [_finding("TPL104", "three", Edit(1, 4, 1, 5, "3"))],
        "A = 1\nb = 2\n": [_finding("TPL104", "four", Edit(2, 4, 2, 5, "4"))],
    }
    analyse, calls = _scripted(rounds)
    applied = []
    assert fix_loop("a = 1\nb = 2\n", analyse, unsafe=True, applied=applied) == (
        "A = 3\nB = 2\n", 3, ([], "analysis of 'A = 3\\nB = 2\\n'"), None)
    assert applied == [("TPL101", "one", 1), ("TPL102", "two", 1), ("TPL104", "three", 2)]
    assert calls == ["a = 1\nb = 2\n", "A = 1\nB = 2\n", "A = 3\nB = 2\n"]

    analyse, calls = _scripted(rounds)
    applied = []
    assert fix_loop("a = 1\nb = 2\n", analyse, unsafe=False, applied=applied) == (
        "A = 1\nb = 4\n", 2, ([], "analysis of 'A = 1\\nb = 4\\n'"), None)
    assert applied == [("TPL101", "one", 1), ("TPL104", "four", 2)]


def test_fix_loop_uses_the_analysis_it_is_given_and_appends_to_applied():
    from torchperf_lint.fixing.fixer import fix_loop

    given = ([_finding("TPL101", "given", Edit(1, 0, 1, 1, "G"))], "given analysis")
    analyse, calls = _scripted({})
    applied = [("TPL000", "earlier", 1)]
    assert fix_loop("a\n", analyse, unsafe=False, first=given, applied=applied) == (
        "G\n", 1, ([], "analysis of 'G\\n'"), None)
    assert calls == ["G\n"]  # the source given was not analysed again
    assert applied == [("TPL000", "earlier", 1), ("TPL101", "given", 1)]

    # Nothing to fix: the given analysis comes back as it is, and nothing is analysed.
    analyse, calls = _scripted({})
    assert fix_loop("a\n", analyse, unsafe=False, first=([], "given")) == ("a\n", 0, ([], "given"), None)
    assert calls == []


def test_fix_loop_counts_no_fix_that_changes_nothing_and_stops_after_max_rounds():
    from torchperf_lint.fixing import fixer
    from torchperf_lint.findings import Finding, Fix

    # A fix whose edit writes the text already there: applied by apply_fixes, but nothing changed,
    # so fix_loop counts nothing and stops at once.
    same = Finding("TPL101", 1, 0, "m", fix=Fix(SAFE, "same", (Edit(1, 0, 1, 1, "a"),)))
    analyse, calls = _scripted({"a\n": [same]})
    applied = []
    assert fixer.fix_loop("a\n", analyse, unsafe=False, applied=applied) == (
        "a\n", 0, ([same], "analysis of 'a\\n'"), None)
    assert applied == [] and calls == ["a\n"]

    # A fix that always finds more to do is cut off after MAX_ROUNDS rounds, each one counted.
    class Growing:
        def __init__(self):
            self.calls = 0

        def __call__(self, text):
            self.calls += 1
            return ([Finding("TPL101", 1, 0, "m", fix=Fix(SAFE, "grow", (Edit(1, 0, 1, 0, "#"),)))],)

    grow = Growing()
    applied = []
    fixed, total, _, error = fixer.fix_loop("x\n", grow, unsafe=False, applied=applied)
    assert (fixed, total, error) == ("#" * fixer.MAX_ROUNDS + "x\n", fixer.MAX_ROUNDS, None)
    assert applied == [("TPL101", "grow", n) for n in range(1, fixer.MAX_ROUNDS + 1)]
    assert grow.calls == fixer.MAX_ROUNDS + 1


def test_fix_loop_names_only_the_applicable_codes_when_a_fix_breaks_the_file():
    from torchperf_lint.fixing.fixer import fix_loop
    from torchperf_lint.findings import Finding

    broken = _finding("TPL102", "d", Edit(1, 0, 1, 0, "("))
    also = _finding("TPL101", "e", Edit(2, 0, 2, 0, "# "))
    unsafe = _finding("TPL304", "f", Edit(1, 0, 1, 0, "x"), UNSAFE)
    first = ([broken, also, unsafe, Finding("TPL103", 1, 0, "m")],)
    applied = []
    fixed, total, analysis, error = fix_loop("x = 1\ny = 2\n", lambda text: first, unsafe=False, applied=applied)
    assert (fixed, total, analysis, applied) == ("x = 1\ny = 2\n", 0, first, [])
    assert error.startswith("the fixes for TPL101, TPL102 would leave code that does not parse (SyntaxError: ")
    assert error.endswith("); nothing was written (please report this)")


# ---- TPL101: legacy constructors, number constants, keywords that forbid the fix, comments ---------

LEGACY_DTYPES = [  # torch's legacy typed constructors and the dtype of what each builds
    ("FloatTensor", "torch.float32"), ("DoubleTensor", "torch.float64"), ("HalfTensor", "torch.float16"),
    ("BFloat16Tensor", "torch.bfloat16"), ("ByteTensor", "torch.uint8"), ("CharTensor", "torch.int8"),
    ("ShortTensor", "torch.int16"), ("IntTensor", "torch.int32"), ("LongTensor", "torch.int64"),
    ("BoolTensor", "torch.bool"),
]


def _legacy_message(name: str, modern: str) -> str:
    return RULES["TPL101"].message_legacy.format(factory=name, modern=modern)


def test_tpl101_each_legacy_constructor_names_its_dtype():
    for name, dtype in LEGACY_DTYPES:
        source = (f"import torch\ndef make(n, device):\n"
                  f"    return torch.{name}([1, 0]).cuda(), torch.{name}(n, 2).to(device)\n")
        assert diagnostics(source) == [
            ("TPL101", 3, 11, _legacy_message(name, f"torch.tensor(..., dtype={dtype}, device=...)"), None),
            ("TPL101", 3, 34 + len(name), _legacy_message(name, f"torch.empty(..., dtype={dtype}, device=...)"),
             None),
        ], name


def test_tpl101_legacy_constructor_sizes_written_as_one_int_or_a_shape():
    source = """\
    import torch
    def make(x, device, space):
        b = torch.FloatTensor(3).to(device)
        y = torch.randn(2, 3)
        c = torch.Tensor(y.shape).cuda()
        d = torch.Tensor([1, 2]).cuda()
        e = torch.Tensor(x).cuda()
        f = torch.Tensor(space.shape).cuda()
        return b, c, d, e, f
    """
    assert diagnostics(source) == [
        ("TPL101", 3, 8, _legacy_message("FloatTensor", "torch.empty(..., dtype=torch.float32, device=...)"), None),
        # a tensor's ``.shape`` is a torch.Size: sizes
        ("TPL101", 5, 8, _legacy_message("Tensor", "torch.empty(..., device=...)"), None),
        # ``torch.Tensor([1, 2])`` is a float tensor where ``torch.tensor([1, 2])`` infers int64.
        ("TPL101", 6, 8, _legacy_message("Tensor", "torch.tensor(..., dtype=torch.get_default_dtype(), device=...)"),
         None),
        # ``torch.Tensor(x)``: sizes or host data, it cannot be told: silent. ``torch.Tensor(space.shape)``
        # of something not known to be a tensor: a tuple is data (``tensor([6.])``, pytorch-soft-actor-critic
        # sac.py, holdout10), a torch.Size sizes: silent too.
    ]


def _tpl101(line: int, col: int, factory: str, fix=None):
    return ("TPL101", line, col, RULES["TPL101"].message.format(factory=factory), fix)


def _device_fix(line: int, col: int, end_col: int, content: str, device: str = "device"):
    return (SAFE, f"create the tensor with device={device}", (Edit(line, col, line, end_col, content),))


def test_tpl101_number_constants_and_number_expressions_are_literal_data():
    source = """\
    import math
    import torch
    def make(device, n, k):
        a = torch.tensor(math.pi).to(device)
        b = torch.tensor(math.e).to(device)
        c = torch.tensor(math.tau).to(device)
        d = torch.tensor(math.inf).to(device)
        e = torch.tensor(math.nan).to(device)
        f = torch.tensor(-math.pi).to(device)
        g = (torch.ones(n) * (k + 1)).to(device)
        h = (torch.ones(n) * -k).to(device)
        return a, b, c, d, e, f, g, h
    """
    constants = [(4, "math.pi"), (5, "math.e"), (6, "math.tau"), (7, "math.inf"), (8, "math.nan"), (9, "-math.pi")]
    assert diagnostics(source) == [
        *(_tpl101(line, 8, "tensor", _device_fix(line, 21 + len(text), 26 + len(text), ", device="))
          for line, text in constants),
        _tpl101(10, 9, "ones"),
        _tpl101(11, 9, "ones"),
    ]


def test_tpl101_float_string_alone_in_a_unit():
    # The ast pre-check must see ``float("-inf")`` as data, or the unit is never analysed.
    source = 'import torch\ndef make(device):\n    return torch.tensor(float("-inf")).to(device)\n'
    assert diagnostics(source) == [_tpl101(3, 11, "tensor", _device_fix(3, 37, 42, ", device="))]
    assert fix_source(source) == (
        'import torch\ndef make(device):\n    return torch.tensor(float("-inf"), device=device)\n', 1)


def test_tpl101_factory_keywords_that_rule_out_the_fix():
    # requires_grad: a leaf on the host becomes a non-leaf; pin_memory: cannot be on the device;
    # out=: writes another tensor; generator=: a CPU generator cannot draw on the device.
    source = """\
    import torch
    def make(device, buf, gen):
        a = torch.zeros(3, requires_grad=True).to(device)
        b = torch.zeros(3, pin_memory=True).to(device)
        c = torch.zeros(3, out=buf).to(device)
        d = torch.zeros(3, generator=gen).to(device)
        return a, b, c, d
    """
    assert diagnostics(source) == [_tpl101(line, 8, "zeros") for line in (3, 4, 5, 6)]


def test_tpl101_cuda_with_a_device_argument_or_keyword():
    source = """\
    import torch
    def make(device):
        g = torch.zeros(3).cuda(device=device)
        h = torch.zeros(3).cuda(device)
        i = torch.zeros(3).cuda()
        j = torch.zeros(3).cuda(device, non_blocking=True)
        return g, h, i, j
    """
    assert diagnostics(source) == [
        _tpl101(3, 8, "zeros", _device_fix(3, 21, 28, ", ")),
        _tpl101(4, 8, "zeros", _device_fix(4, 21, 28, ", device=")),
        _tpl101(5, 8, "zeros", _device_fix(5, 21, 28, ', device="cuda"', '"cuda"')),
        # The edit is the smallest replacement: ``).cuda(device, non_blocking=Tru`` by ``, device=devic``.
        _tpl101(6, 8, "zeros", _device_fix(6, 21, 52, ", device=devic")),
    ]
    fixed, count = fix_source(textwrap.dedent(source))
    assert count == 4
    assert fixed.splitlines()[2:6] == [
        "    g = torch.zeros(3, device=device)",
        "    h = torch.zeros(3, device=device)",
        '    i = torch.zeros(3, device="cuda")',
        "    j = torch.zeros(3, device=device)",
    ]


def test_tpl101_fix_keeps_the_comments_of_the_move():
    source = """\
    import torch
    def make(device):
        mask = torch.zeros(
            3  # rows
        ).to(  # on the gpu
            device  # here
        )
        return mask
    """
    assert fix_source(textwrap.dedent(source)) == (textwrap.dedent("""\
    import torch
    def make(device):
        mask = torch.zeros(
            3,  # rows
            device=device  # on the gpu
            # here
        )
        return mask
    """), 1)


# ---- TPL102: the host-needed tables, the timers, the text prefilter's words ------------------------

def msg102(what: str) -> str:
    return RULES["TPL102"].message.format(what=what)


HOST_NEEDED = [  # a value torch (or a host library) reads on the host: the sync is needed
    "torch.split(out, n.item())", "torch.split(out, split_size_or_sections=n.item())",
    "torch.tensor_split(out, n.item())", "torch.tensor_split(out, indices_or_sections=n.item())",
    "torch.tensor_split(out, sections=n.item())", "torch.tensor_split(out, indices=n.item())",
    "out.split(n.item())", "out.split(split_size=n.item())", "out.split(split_size_or_sections=n.item())",
    "out.tensor_split(n.item())", "out.tensor_split(indices_or_sections=n.item())",
    "out.tensor_split(sections=n.item())", "out.tensor_split(indices=n.item())",
    "out.narrow(0, n.item(), 2)", "out.narrow(0, 0, n.item())", "out.narrow(0, start=n.item(), length=2)",
    "out.narrow(0, 0, length=n.item())",
    "torch.topk(out, n.item())", "torch.topk(out, k=n.item())", "out.topk(n.item())", "out.topk(k=n.item())",
    "torch.kthvalue(out, n.item())", "torch.kthvalue(out, k=n.item())", "out.kthvalue(n.item())",
    "out.kthvalue(k=n.item())",
    "pack_padded_sequence(out, n.cpu())", "pack_padded_sequence(out, lengths=n.cpu())",
    "np.asarray(n.cpu())", "scipy.signal.medfilt(n.cpu())", "cv2.imwrite(path, n.cpu().numpy())",
    "PIL.Image.fromarray(n.cpu().numpy())",
]

HOST_NEEDED_TEMPLATE = """\
import numpy as np
import scipy.signal
import cv2
import PIL.Image
import torch
from torch.nn.utils.rnn import pack_padded_sequence
def train(model, loader, path, other):
    for batch in loader:
        out = model(batch.cuda())
        n = (out > 0).sum()
        r = {expr}
        loss = out.sum()
        loss.backward()
"""


def test_tpl102_host_needed_arguments_are_silent():
    for expr in HOST_NEEDED:
        assert diagnostics(HOST_NEEDED_TEMPLATE.format(expr=expr), "TPL102") == [], expr
    # The same values anywhere else are waits the step does not need.
    assert diagnostics(HOST_NEEDED_TEMPLATE.format(expr="float(n)"), "TPL102") == [
        ("TPL102", 11, 12, msg102("`float()` of a tensor"), None)]
    assert diagnostics(HOST_NEEDED_TEMPLATE.format(expr="other.asarray(n.cpu())"), "TPL102") == [
        ("TPL102", 11, 26, msg102("`.cpu()`"), None)]


TIMER_TEMPLATE = """\
import time
import timeit
import torch
def bench(model, loader):
    for batch in loader:
        loss = model(batch.cuda()).sum()
        loss.backward()
        torch.cuda.synchronize()
        {after}
    torch.cuda.synchronize()
"""


def test_tpl102_synchronize_before_a_timer_is_needed_and_once_after_the_loop_is_fine():
    for timer in ("time.perf_counter()", "time.time()", "time.monotonic()", "time.perf_counter_ns()",
                  "time.time_ns()", "time.monotonic_ns()", "timeit.default_timer()"):
        assert diagnostics(TIMER_TEMPLATE.format(after=f"t = {timer}"), "TPL102") == [], timer
    assert diagnostics(TIMER_TEMPLATE.format(after="print('step')"), "TPL102") == [
        ("TPL102", 8, 8, msg102("`torch.cuda.synchronize()`"), None)]


def test_tpl102_each_word_of_the_text_prefilter_lets_a_unit_through():
    # A unit with no sync method is analysed only if it names tensor code (one of these words) and
    # reads a value; each case has that one word only.
    reads = {
        ".mean(": "float(y.mean())", ".sum(": "float(y.sum())", ".any(": "bool(y.any())",
        ".all(": "bool(y.all())", "isfinite": "bool(torch.isfinite(y).prod())",
        "isnan": "bool(torch.isnan(y).prod())", "isinf": "bool(torch.isinf(y).prod())",
        ".max(": "float(y.max())", ".min(": "float(y.min())",
    }
    for word, read in reads.items():
        source = f"import torch\ndef run(net, loader, opt):\n    for x in loader:\n        y = net(x.cuda())\n" \
                 f"        opt.step()\n        r = {read}\n"
        others = [w for w in RULES["TPL102"]._TENSOR_CODE if w != word]
        assert not any(w in source for w in others), word
        conversion = read.split("(", 1)[0]
        assert diagnostics(source, "TPL102") == [("TPL102", 6, 12, msg102(f"`{conversion}()` of a tensor"), None)], word


def test_tpl102_environment_steps_and_size_keywords_are_host_needed():
    source = """\
    import torch
    def rollout(policy, env, envs, other, loader, opt):
        for obs in loader:
            logits = policy(obs.cuda())
            actions = logits.argmax(-1)
            env.step(actions.cpu().numpy())
            envs.step(actions.cpu().numpy())
            other.step(actions.cpu().numpy())
            n = (logits > 0).sum()
            a = torch.zeros(size=(n.item(), 2))
            b = logits.expand(size=(n.item(), 2))
            loss = logits.sum()
            loss.backward()
            opt.step()
    """
    assert diagnostics(source, "TPL102") == [("TPL102", 8, 19, msg102("`.cpu()`"), None)]


def test_tpl102_tests_that_stop_an_inner_loop_without_updates_are_needed():
    # A decoding loop inside the training step stops on what the host reads: each test must be
    # answered every time round. A test whose body does not leave the loop, or that stops the
    # training loop itself (which runs the update), is a wait to avoid.
    source = """\
    import torch
    def train(model, loader, opt, eos_id):
        for batch in loader:
            loss = model(batch.cuda()).sum()
            loss.backward()
            opt.step()
            ids = batch.cuda()
            for _ in range(20):
                next_id = model(ids).argmax(-1)
                ids = torch.cat([ids, next_id], 1)
                if next_id.item() == eos_id:
                    break
                if next_id.eq(eos_id).all().item():
                    break
                if next_id.sum().item():
                    print("x")
            while ids.any().item():
                ids = ids[1:]
            if loss.isnan().item():
                break
    """
    assert diagnostics(source, "TPL102") == [
        ("TPL102", 15, 15, msg102("`.item()`"), None),
        ("TPL102", 19, 11, msg102("`.item()`"), None),
    ]


def test_tpl102_conditional_synchronize_before_a_timer():
    # The synchronize call deeper in its statement (a conditional expression): the timer read is
    # still the statement after it, on the next line or after a semicolon.
    source = TIMER_TEMPLATE.replace("        torch.cuda.synchronize()\n        {after}\n", """\
        torch.cuda.synchronize() if torch.cuda.is_available() else None
        t = time.perf_counter()
        torch.cuda.synchronize() if torch.cuda.is_available() else None; t = time.perf_counter()
        torch.cuda.synchronize() if torch.cuda.is_available() else None; print(t)
""")
    assert diagnostics(source, "TPL102") == [("TPL102", 11, 8, msg102("`torch.cuda.synchronize()`"), None)]


def test_tpl102_builtin_max_min_read_positional_tensors_only():
    # ``default=`` is returned as it is, never compared; a starred list of host scores holds no tensor.
    source = """\
    import torch
    def train(model, loader, opt, scores):
        for batch in loader:
            loss = model(batch.cuda()).sum()
            best = max(scores, default=loss)
            worst = min([loss, 0.5])
            most = max([*scores, 0.5])
            loss.backward()
            opt.step()
    """
    assert diagnostics(source, "TPL102") == [("TPL102", 6, 16, msg102("builtin `min()` of tensors"), None)]


def test_tpl102_numpy_conversion_used_by_a_host_library_only_in_the_other_branch():
    # The value converted in the ``if`` body never reaches the ``else``: that branch's OpenCV call
    # reads another ``m``, so the conversion is a wait the step does not need.
    source = """\
    import cv2
    import torch
    def train(model, loader, opt, path, cond):
        for batch in loader:
            out = model(batch.cuda())
            if cond:
                m = out.cpu().numpy()
                print(m.shape)
            else:
                cv2.imwrite(path, m)
            loss = out.sum()
            loss.backward()
            opt.step()
    """
    assert diagnostics(source, "TPL102") == [("TPL102", 7, 16, msg102("`.cpu()`"), None)]


# ---- TPL304: every deprecated spelling, its device, message and fixed text -------------------------

def test_tpl304_every_deprecated_spelling_is_fixed_with_its_device():
    source = textwrap.dedent("""\
    import torch
    def run(model, x, use_amp):
        with torch.cuda.amp.autocast(enabled=use_amp):
            y = model(x)
        s1 = torch.cuda.amp.GradScaler(enabled=use_amp)
        with torch.cpu.amp.autocast():
            y = model(x)
        s2 = torch.cpu.amp.GradScaler()
        with torch.cpu.amp.autocast_mode.autocast(dtype=torch.bfloat16):
            y = model(x)
        s3 = torch.cpu.amp.grad_scaler.GradScaler()
        return y, s1, s2, s3
    """)

    def row(line, old, name, device, end_col, content):
        new = f'torch.amp.{name}("{device}", ...)'
        return ("TPL304", line, 9, RULES["TPL304"].message.format(old=old, new=new),
                (SAFE, f"use {new}", (Edit(line, 15, line, end_col, content),)))

    assert diagnostics(source, "TPL304") == [
        row(3, "torch.cuda.amp.autocast", "autocast", "cuda", 33, 'amp.autocast("cuda", '),
        row(5, "torch.cuda.amp.GradScaler", "GradScaler", "cuda", 35, 'amp.GradScaler("cuda", '),
        row(6, "torch.cpu.amp.autocast", "autocast", "cpu", 32, 'amp.autocast("cpu"'),
        row(8, "torch.cpu.amp.GradScaler", "GradScaler", "cpu", 34, 'amp.GradScaler("cpu"'),
        row(9, "torch.cpu.amp.autocast_mode.autocast", "autocast", "cpu", 46, 'amp.autocast("cpu", '),
        row(11, "torch.cpu.amp.grad_scaler.GradScaler", "GradScaler", "cpu", 46, 'amp.GradScaler("cpu"'),
    ]
    fixed = source.replace("torch.cuda.amp.autocast(", 'torch.amp.autocast("cuda", ').replace(
        "torch.cuda.amp.GradScaler(", 'torch.amp.GradScaler("cuda", ').replace(
        "torch.cpu.amp.autocast()", 'torch.amp.autocast("cpu")').replace(
        "torch.cpu.amp.GradScaler()", 'torch.amp.GradScaler("cpu")').replace(
        "torch.cpu.amp.autocast_mode.autocast(", 'torch.amp.autocast("cpu", ').replace(
        "torch.cpu.amp.grad_scaler.GradScaler()", 'torch.amp.GradScaler("cpu")')
    assert fix_source(source) == (fixed, 6)
    assert fix_source(fixed) == (fixed, 0)


def test_tpl304_import_as_itself_is_a_re_export_and_gets_no_fix():
    # ``import autocast as autocast`` is the re-export idiom: other modules may import the name
    # from this one and call it without a device.
    message = RULES["TPL304"].message_import.format(module="torch.cuda.amp", device="cuda")
    description = "import from torch.amp and pass the device at every use"
    template = "import torch\n{imp}\ndef run(model, x):\n    with {name}():\n        return model(x)\n"
    reexport = template.format(imp="from torch.cuda.amp import autocast as autocast", name="autocast")
    plain = template.format(imp="from torch.cuda.amp import autocast", name="autocast")
    renamed = template.format(imp="from torch.cuda.amp import autocast as ac", name="ac")
    assert diagnostics(reexport, "TPL304") == [("TPL304", 2, 0, message, None)]
    assert diagnostics(plain, "TPL304") == [("TPL304", 2, 0, message, (SAFE, description, (
        Edit(2, 11, 2, 16, ""), Edit(4, 18, 4, 18, '"cuda"'))))]
    assert diagnostics(renamed, "TPL304") == [("TPL304", 2, 0, message, (SAFE, description, (
        Edit(2, 11, 2, 16, ""), Edit(4, 12, 4, 12, '"cuda"'))))]
    assert fix_source(renamed) == (renamed.replace("torch.cuda.amp", "torch.amp").replace("ac()", 'ac("cuda")'), 1)
    assert fix_source(reexport) == (reexport, 0)


def test_tpl304_a_name_in_all_or_an_unreadable_all_gets_no_fix():
    message = RULES["TPL304"].message_import.format(module="torch.cuda.amp", device="cuda")
    template = ("import torch\nfrom torch.cuda.amp import autocast\n{all}\n"
                "def run(model, x):\n    with autocast():\n        return model(x)\n")
    for exported in ('__all__ = ["autocast", "run"]', "__all__ = names()", '__all__ = ["run"] + names()'):
        source = template.format(all=exported)
        assert diagnostics(source, "TPL304") == [("TPL304", 2, 0, message, None)], exported
        assert fix_source(source) == (source, 0)
    source = template.format(all='__all__ = ["run"]')
    assert diagnostics(source, "TPL304") == [("TPL304", 2, 0, message, (
        SAFE, "import from torch.amp and pass the device at every use",
        (Edit(2, 11, 2, 16, ""), Edit(5, 18, 5, 18, '"cuda"'))))]


def test_tpl304_decorator_called_on_a_function_and_positional_autocast_in_a_function():
    source = textwrap.dedent("""\
    import torch
    def build(forward_impl, backward_impl):
        forward = torch.cuda.amp.custom_fwd(forward_impl)
        backward = torch.cuda.amp.custom_bwd(backward_impl)
        return forward, backward
    def run(model, x, flag):
        from torch.cuda.amp import autocast
        with autocast(flag):
            y = model(x)
        return y
    def run2(model, x, flag):
        from torch.cuda.amp import autocast
        with autocast(enabled=flag):
            y = model(x)
        return y
    """)
    fwd_new, bwd_new = ('torch.amp.custom_fwd(device_type="cuda")', 'torch.amp.custom_bwd(device_type="cuda")')
    import_message = RULES["TPL304"].message_import.format(module="torch.cuda.amp", device="cuda")
    assert diagnostics(source, "TPL304") == [
        ("TPL304", 3, 14, RULES["TPL304"].message.format(old="torch.cuda.amp.custom_fwd", new=fwd_new),
         (SAFE, f"use {fwd_new}", (Edit(3, 20, 3, 52, 'amp.custom_fwd(forward_impl, device_type="cuda"'),))),
        ("TPL304", 4, 15, RULES["TPL304"].message.format(old="torch.cuda.amp.custom_bwd", new=bwd_new),
         (SAFE, f"use {bwd_new}", (Edit(4, 21, 4, 54, 'amp.custom_bwd(backward_impl, device_type="cuda"'),))),
        # ``autocast(flag)``: torch.amp.autocast's first parameter is the device, not ``enabled``.
        ("TPL304", 7, 4, import_message, None),
        ("TPL304", 12, 4, import_message, (SAFE, "import from torch.amp and pass the device at every use", (
            Edit(12, 15, 13, 18, 'amp import autocast\n    with autocast("cuda", '),))),
    ]
    fixed = (source.replace("torch.cuda.amp.custom_fwd(forward_impl)",
                            'torch.amp.custom_fwd(forward_impl, device_type="cuda")')
             .replace("torch.cuda.amp.custom_bwd(backward_impl)",
                      'torch.amp.custom_bwd(backward_impl, device_type="cuda")')
             .replace("    from torch.cuda.amp import autocast\n    with autocast(enabled",
                      '    from torch.amp import autocast\n    with autocast("cuda", enabled'))
    assert fix_source(source) == (fixed, 3)
    assert fix_source(fixed) == (fixed, 0)


def test_tpl304_file_wide_import_fix_of_custom_fwd_and_custom_bwd_uses():
    source = textwrap.dedent("""\
    import torch
    from torch.cuda.amp import custom_fwd, custom_bwd
    def build(forward_impl, backward_impl):
        forward = custom_fwd(forward_impl)
        backward = custom_bwd(backward_impl, )
        return forward, backward
    class F(torch.autograd.Function):
        @staticmethod
        @custom_fwd(cast_inputs=torch.float32)
        def forward(ctx, x):
            return x
        @staticmethod
        @custom_bwd
        def backward(ctx, g):
            return g
    """)
    device = 'device_type="cuda"'
    assert diagnostics(source, "TPL304") == [("TPL304", 2, 0, RULES["TPL304"].message_import.format(
        module="torch.cuda.amp", device="cuda"), (SAFE, "import from torch.amp and pass the device at every use", (
            Edit(2, 11, 2, 16, ""), Edit(4, 37, 4, 37, f", {device}"), Edit(9, 16, 9, 16, f"{device}, "),
            Edit(5, 39, 5, 39, f", {device}"), Edit(13, 15, 13, 15, f"({device})"))))]
    fixed = textwrap.dedent("""\
    import torch
    from torch.amp import custom_fwd, custom_bwd
    def build(forward_impl, backward_impl):
        forward = custom_fwd(forward_impl, device_type="cuda")
        backward = custom_bwd(backward_impl, device_type="cuda", )
        return forward, backward
    class F(torch.autograd.Function):
        @staticmethod
        @custom_fwd(device_type="cuda", cast_inputs=torch.float32)
        def forward(ctx, x):
            return x
        @staticmethod
        @custom_bwd(device_type="cuda")
        def backward(ctx, g):
            return g
    """)
    assert fix_source(source) == (fixed, 1)
    assert fix_source(fixed) == (fixed, 0)


# ---- fixing/lines.py: lines as Python's tokenizer counts them -------------------------------------

def test_split_lines_ends_lines_only_at_cr_lf_and_crlf():
    from torchperf_lint.fixing.lines import split_lines

    for char in "\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029":
        # Alone (the fast path must not be taken) and next to a real line end.
        assert split_lines(f"a{char}b\nc") == [f"a{char}b\n", "c"], repr(char)
        assert split_lines(f"a{char}b\r\nc{char}\n") == [f"a{char}b\r\n", f"c{char}\n"], repr(char)
        assert split_lines(char) == [char], repr(char)
    assert split_lines("a\rb\r\nc\nd") == ["a\r", "b\r\n", "c\n", "d"]
    assert split_lines("\r\r\n\n") == ["\r", "\r\n", "\n"]
    assert split_lines("a\n\nb\n") == ["a\n", "\n", "b\n"]
    assert split_lines("\n") == ["\n"] and split_lines("x") == ["x"] and split_lines("") == []
    # The lines put back together are the text, whatever it holds.
    text = "x = 1\x0c\r\ny = '\u2028'\rz\x85\n\n\x1c"
    assert split_lines(text) == ["x = 1\x0c\r\n", "y = '\u2028'\r", "z\x85\n", "\n", "\x1c"]
    assert "".join(split_lines(text)) == text


def test_normalise_newlines_and_newline_of():
    from torchperf_lint.fixing.lines import newline_of, normalise_newlines

    assert normalise_newlines("a\r\nb\rc\nd\r\r\ne\r") == "a\nb\nc\nd\n\ne\n"
    assert normalise_newlines("a\x0cb\u2028c\n") == "a\x0cb\u2028c\n"
    assert normalise_newlines("no line end") == "no line end"
    cases = {"a\nb\r\n": "\n", "a\r\nb\n": "\r\n", "a\rb\n": "\r", "a": "\n", "": "\n", "a\nb\rc": "\n",
             "\r": "\r", "\r\n": "\r\n", "a\r": "\r", "x\x0c\ny": "\n", "\u2028\r\n": "\r\n"}
    assert {text: newline_of(text) for text in cases} == cases


# ---- analysis/step_loops.py --------------------------------------------------------------------------

def test_step_loop_calls_an_instance_of_a_module_class_only():
    # A loop over range() is a step loop when it calls a model: an instance of a class built on
    # nn.Module (by any import path or alias), not of any other class.
    template = """\
    import torch
    from torch.nn.modules.module import Module as BaseModule
    class Scorer({base}):
        def __call__(self, x):
            return x
    scorer = Scorer()
    def run(x, steps):
        x = x.cuda()
        for i in range(steps):
            y = scorer(x)
            print(float(x.sum()))
    """
    flagged = [("TPL102", 11, 14, msg102("`float()` of a tensor"), None)]
    for base, expected in (("object", []), ("dict", []), ("torch.nn.Module", flagged), ("BaseModule", flagged)):
        assert diagnostics(template.format(base=base)) == expected, base


def test_functions_called_from_a_plain_loop_are_not_step_bodies():
    # ``report`` runs every step only when a step loop calls it; a loop over file paths is not one.
    template = """\
    import torch
    def report(t):
        for row in t:
            print(row.item())
    def main(loader, paths, model, t):
        t = t.cuda()
        {loop}
    """
    plain = "for p in paths:\n            report(t)"
    step = "for batch in loader:\n            model(batch.cuda()).sum().backward()\n            report(t)"
    assert diagnostics(template.format(loop=plain)) == []
    assert diagnostics(template.format(loop=step)) == [
        ("TPL102", 4, 14, msg102("`.item()`") + " (called every step from <string>:9)", None)]


# ---- TPL104: side streams make the fix unsafe unless something waits; the layout of the call kept ---

def test_tpl104_copy_on_a_side_stream_is_unsafe_unless_waited_for():
    source = """\
    import torch
    from torch.utils.data import DataLoader
    loader = DataLoader(ds, batch_size=64, num_workers=4, pin_memory=True)
    def on_stream(model, device, s):
        for batch in loader:
            with torch.cuda.stream(s):
                x = batch.to(device)
            model(x).sum().backward()
    def on_new_stream(model, device):
        for batch in loader:
            with torch.cuda.Stream():
                x = batch.to(device)
            model(x).sum().backward()
    def waited(model, device, s):
        for batch in loader:
            with torch.cuda.stream(s):
                x = batch.to(device)
            torch.cuda.current_stream().wait_stream(s)
            model(x).sum().backward()
    def plain(model, device):
        for batch in loader:
            x = batch.to(device)
            model(x).sum().backward()
    """
    unsafe = (UNSAFE, "add non_blocking=True (unsafe: a side stream takes part and nothing waits for the copy; "
                      "another stream could read the tensor before it arrives)")

    def edit(line, col):
        return (Edit(line, col, line, col, ", non_blocking=True"),)

    assert diagnostics(source, "TPL104") == [
        ("TPL104", 7, 16, TPL104_MESSAGE, (*unsafe, edit(7, 31))),
        ("TPL104", 12, 16, TPL104_MESSAGE, (*unsafe, edit(12, 31))),
        ("TPL104", 17, 16, TPL104_MESSAGE, (*ADD_NON_BLOCKING, edit(17, 31))),
        ("TPL104", 22, 12, TPL104_MESSAGE, (*ADD_NON_BLOCKING, edit(22, 27))),
    ]


def test_tpl104_fix_keeps_the_space_before_the_closing_parenthesis():
    source = textwrap.dedent("""\
    import torch
    from torch.utils.data import DataLoader
    loader = DataLoader(ds, batch_size=64, num_workers=4, pin_memory=True)
    def train(model, device):
        for batch in loader:
            batch = batch.to(device )
            model(batch).sum().backward()
    """)
    assert diagnostics(source, "TPL104") == [("TPL104", 6, 16, TPL104_MESSAGE, (
        *ADD_NON_BLOCKING, (Edit(6, 31, 6, 31, ", non_blocking=True"),)))]
    fixed = source.replace("batch.to(device )", "batch.to(device, non_blocking=True )")
    assert fix_source(source) == (fixed, 1)
    assert fix_source(fixed) == (fixed, 0)


def test_tpl104_loader_made_in_the_call_is_a_loader_beside_a_device_data_loader():
    # A module that also builds a loader over CUDA tensors: only the names known as host loaders
    # give pinned batches, and a pinned DataLoader(...) made in the call is one of them.
    source = """\
    import torch
    from torch.utils.data import DataLoader, TensorDataset
    gpu_loader = DataLoader(TensorDataset(torch.zeros(4, device="cuda")), batch_size=2)
    def evaluate(model, loader, device):
        for batch in loader:
            out = model(batch.to(device))
            out.sum().backward()
    def main(model, ds, device):
        evaluate(model, DataLoader(ds, batch_size=8, pin_memory=True, num_workers=2), device)
    """
    assert diagnostics(source, "TPL104") == [("TPL104", 6, 20, TPL104_MESSAGE, (
        *ADD_NON_BLOCKING, (Edit(6, 35, 6, 35, ", non_blocking=True"),)))]


# ---- found by the last run (after its scratch copy was taken: not counted in its score) ------------

def test_a_model_moved_by_a_bare_to_call_is_on_the_device():
    # ``model.to(device)`` as a statement moves the module in place: its outputs are device tensors.
    source = """\
    import torch
    class Net(torch.nn.Module):
        def forward(self, x):
            return x
    def train(loader, opt, device):
        model = Net()
        model.to(device)
        for batch in loader:
            loss = model(batch).sum()
            loss.backward()
            opt.step()
            print(float(loss))
    """
    assert diagnostics(source) == [("TPL102", 12, 14, msg102("`float()` of a tensor"), None)]
    # Never moved: a model the file keeps on the CPU gives host tensors.
    assert diagnostics(source.replace("        model.to(device)\n", "")) == []


def test_tpl104_module_defining_a_narrow_to_makes_the_fix_unsafe():
    source = """\
    import torch
    from torch.utils.data import DataLoader
    loader = DataLoader(ds, batch_size=64, num_workers=4, pin_memory=True)
    class Batch:
        def to(self, device):
            return self
    def train(model, device):
        for batch in loader:
            x = batch.to(device)
            model(x).sum().backward()
    """
    assert diagnostics(source, "TPL104") == [("TPL104", 9, 12, TPL104_MESSAGE, (
        UNSAFE, "add non_blocking=True (unsafe: the module defines `Batch.to(self, device)`, which takes no "
                "non_blocking; if the batch is one, the call raises TypeError)",
        (Edit(9, 27, 9, 27, ", non_blocking=True"),)))]


def test_calls_in_a_definition_nested_in_a_step_loop_do_not_make_step_bodies():
    source = """\
    import torch
    def report(t):
        for row in t:
            print(row.item())
    def main(loader, model, t):
        t = t.cuda()
        for batch in loader:
            model(batch.cuda()).sum().backward()
            def later():
                report(t)
    """
    assert diagnostics(source) == []
