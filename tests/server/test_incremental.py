"""The server's lint of a changed text, reusing its last lint (analysis/edit_reuse.py), gives what a
fresh lint of that text gives: over random edit sequences, and for each way a splice could go wrong."""

import ast
import random
import textwrap
from pathlib import Path

import pytest

from torchperf_lint.analysis import edit_reuse
from torchperf_lint.analysis.edit_reuse import DocumentMemo, reusing
from torchperf_lint.analysis.project_index import Project
from torchperf_lint.fixing import fstrings
from torchperf_lint.fixing.lines import split_lines
from torchperf_lint.frontends.runner import analyse
from torchperf_lint.frontends.server import Projects, lint_text

SPEC_CASES = Path(__file__).resolve().parents[1] / "spec_cases"

HEAD = textwrap.dedent('''\
    import os

    import numpy as np
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    from torch.utils.data import DataLoader, Dataset

    SCALE = 3
    ''')

MODEL = textwrap.dedent('''\

    class Block(nn.Module):
        def __init__(self, channels=16):
            super().__init__()
            self.conv = nn.Conv2d(channels, channels, 3, padding=1)
            self.bn = nn.BatchNorm2d(channels)

        def forward(self, x):
            return F.relu(self.bn(self.conv(x))) * 2


    def train(model, loader, optimizer, epochs=3):
        device = torch.device("cuda")
        model.to(device)
        for epoch in range(epochs):
            for step, (images, labels) in enumerate(loader):
                images, labels = images.to(device), labels.to(device)
                loss = F.cross_entropy(model(images), labels)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                print(loss.item() * 1)
            print(f"epoch {epoch}: {torch.zeros(2).cuda()}")


    def evaluate(model, loader):
        model.eval()
        correct = 0
        for images, labels in loader:
            correct += (model(images.cuda()).argmax(1).cpu() == labels).sum().item()
        return correct / 10
    ''')

# Lines an edit inserts (inside a function at its indentation, or at the top level): each changes
# a fact some rule reads (a move, a sync, a loader, the module's device, a matmul setting).
BODY_LINES = [
    "x = torch.zeros(4).cuda()",
    "total = loss.item()",
    "loader = DataLoader(range(8), batch_size=2)",
    "torch.cuda.empty_cache()",
    "model = nn.DataParallel(model)",
    "y = torch.randn(3, 3) @ torch.randn(3, 3)",
    "with torch.no_grad():\n    z = model(torch.ones(1))",
    "value = 7",
    "print(f'{torch.ones(2).cuda()}', f\"{torch.arange(3).to('cuda')}\")",
]
TOP_LINES = [
    'os.environ["CUDA_VISIBLE_DEVICES"] = ""',
    "torch.backends.cudnn.benchmark = True",
    'torch.set_float32_matmul_precision("high")',
    "DEVICE = torch.device('cpu')",
    "from torch.nn.parallel import DistributedDataParallel as DDP",
    "import torch.distributed as dist",
    "scaler = torch.cuda.amp.GradScaler()",
    "SCALE = 4",
]


def base_text() -> str:
    """The head, the model and training code above, and a few spec-case snippets as functions."""
    sections = []
    for path in sorted(SPEC_CASES.glob("*.py"))[::17]:
        source = path.read_text(encoding="utf-8")
        if '"""' in source or "'''" in source or "\\" in source or path.name.startswith("tpl900"):
            continue  # (tpl900: files made to fail the parse)
        rows = [r for r in source.splitlines() if not r.startswith(("import ", "from "))]
        body = textwrap.indent("\n".join(rows).strip("\n"), "    ") or "    pass"
        sections.append(f"\n\ndef case_{len(sections)}():\n{body}\n    return None\n")
    return HEAD + MODEL + "".join(sections)


def describe(findings, rows):
    """Everything a client sees of the findings: fixes materialised."""
    out = []
    for finding, row in zip(findings, rows):
        fix = finding.fix
        out.append((finding.code, finding.line, finding.col, finding.end_line, finding.end_col, finding.message,
                     finding.related, row,
                     None if fix is None else (fix.applicability, fix.description, tuple(fix.edits))))
    return out


def edit(text: str, rng: random.Random) -> str:
    """One random edit: a number bumped, a line typed in a function or at the top, a line deleted,
    an import changed, a class base changed, a character typed (often a syntax error)."""
    lines = text.splitlines(keepends=True)
    kind = rng.choice(("number", "number", "body", "top", "delete", "import", "base", "char", "blank"))
    if kind == "number":
        rows = [i for i, row in enumerate(lines) if any(c.isdigit() for c in row)]
        i = rng.choice(rows)
        row = lines[i]
        digits = [j for j, c in enumerate(row) if c.isdigit()]
        j = rng.choice(digits)
        lines[i] = row[:j] + str((int(row[j]) + 1) % 10) + row[j + 1:]
    elif kind == "body":
        rows = [i for i, row in enumerate(lines) if row.startswith("    ") and row.strip()
                and not row.rstrip().endswith((",", "(", "\\", ":"))]
        i = rng.choice(rows)
        indent = lines[i][:len(lines[i]) - len(lines[i].lstrip())]
        lines.insert(i + 1, textwrap.indent(rng.choice(BODY_LINES), indent) + "\n")
    elif kind == "top":
        rows = [i for i, row in enumerate(lines) if row.startswith(("def ", "class "))]
        lines.insert(rng.choice(rows), rng.choice(TOP_LINES) + "\n\n")
    elif kind == "delete":
        del lines[rng.randrange(len(lines))]
    elif kind == "import":
        rows = [i for i, row in enumerate(lines) if row.startswith(("import ", "from "))]
        i = rng.choice(rows)
        lines[i] = rng.choice(("", "# " + lines[i], "import torch as th\n", "import torch.cuda.amp as amp\n",
                               lines[i].replace("torch", "torchvision", 1)))
    elif kind == "base":
        rows = [i for i, row in enumerate(lines) if row.startswith("class ")]
        if rows:
            i = rng.choice(rows)
            lines[i] = lines[i].replace("(nn.Module)", "(object)") if "nn.Module" in lines[i] else \
                lines[i].replace("(object)", "(nn.Module)")
    elif kind == "char":
        i = rng.randrange(len(lines))
        row = lines[i]
        j = rng.randrange(len(row))
        lines[i] = row[:j] + rng.choice("(:x.1 ") + row[j:]
    else:  # a blank line, which moves every line below it
        lines.insert(rng.randrange(len(lines)), "\n")
    return "".join(lines)


@pytest.mark.parametrize("seed", range(4))
def test_the_lint_of_each_edit_is_a_fresh_lint(tmp_path, seed):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "demo"\n', encoding="utf-8")
    path = tmp_path / "train.py"
    text = base_text()
    path.write_text(text, encoding="utf-8")
    projects = Projects()
    rng = random.Random(seed)
    codes_seen, broken = set(), 0
    good = text
    for version in range(1, 41):
        result, error = lint_text(projects, path, text, version, None)
        assert error is None
        fresh = analyse(text, str(path), result.codes, result.line_length)  # no memo: a fresh lint
        assert describe(result.findings, result.noqa_rows) == describe(*fresh), (seed, version, text)
        codes_seen.update(f.code for f in result.findings)
        if any(f.code == "TPL900" for f in result.findings):
            broken += 1
        else:
            good = text
        # A text that does not parse is typed on until it does: the next edit starts from the last
        # text that parsed (as the lints after a typo do, once it is fixed).
        text = edit(good if text != good and rng.random() < 0.7 else text, rng)
    memo = projects.for_path(path)._memos[str(path)]
    assert memo.spliced > 0 and memo.parsed > 0  # both ways were taken
    assert len(codes_seen - {"TPL900"}) >= 3


# A module whose findings in one function depend on facts another statement holds.
FACTS_ACROSS = textwrap.dedent('''\
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    from torch.autograd import grad
    from torch.utils.data import DataLoader, TensorDataset

    features = torch.randn(64, 8)
    labels = torch.randint(0, 2, (64,))
    dataset = TensorDataset(features, labels)


    class Block(nn.Module):
        def __init__(self, channels=16):
            super().__init__()
            self.conv = nn.Conv2d(channels, channels, 3, padding=1)
            self.bn = nn.BatchNorm2d(channels)

        def forward(self, x):
            return F.relu(self.bn(self.conv(x)))


    def penalty(critic, real):
        real.requires_grad_(True)
        out = critic(real).sum()
        return grad(out, real, create_graph=True)[0].norm()


    def make_loader():
        return DataLoader(dataset, batch_size=8, num_workers=4, pin_memory=True)


    def train(model, optimizer, device):
        loader = make_loader()
        for inputs, targets in loader:
            inputs, targets = inputs.to(device), targets.to(device)
            loss = F.cross_entropy(model(inputs), targets)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()


    def validate(model, loader):
        model.eval()
        total = 0
        for real, _ in loader:
            out = model(real)
            total = total + penalty(model, real) + out.sum()
        return total
    ''')
# (old text, new text, the codes and lines of the findings after the edit): each edit changes a
# fact that a statement the edit does not touch reads, and some change it back.
FACT_EDITS = [
    (None, None, [("TPL605", 15), ("TPL104", 35), ("TPL104", 35)]),
    # the loader's pin_memory (module facts): TPL104 in train() goes
    ("pin_memory=True", "pin_memory=False", [("TPL605", 15)]),
    # the BatchNorm attribute of the class (TPL605's conv-into-BatchNorm map)
    ("self.bn = nn.BatchNorm2d(channels)", "self.bn = nn.Identity()", []),
    # the helper stops differentiating (TPL602's differentiating functions): validate() is reported
    ("return grad(out, real, create_graph=True)[0].norm()", "return out.norm()", [("TPL602", 46)]),
    # the import table: every name ``nn.`` stands for changes
    ("import torch.nn as nn\n", "import torch.nn as tnn\n", [("TPL602", 46)]),
    ("self.bn = nn.Identity()", "self.bn = nn.BatchNorm2d(channels)", [("TPL602", 46)]),
    ("import torch.nn as tnn\n", "import torch.nn as nn\n", [("TPL605", 15), ("TPL602", 46)]),
    ("return out.norm()", "return grad(out, real)[0].norm()", [("TPL605", 15)]),
    # ``grad`` imported from elsewhere: the helper, not edited, no longer differentiates
    ("from torch.autograd import grad", "from mylib import grad", [("TPL605", 15), ("TPL602", 46)]),
    ("from mylib import grad", "from torch.autograd import grad", [("TPL605", 15)]),
    ("pin_memory=False", "pin_memory=True", [("TPL605", 15), ("TPL104", 35), ("TPL104", 35)]),
    # the dataset's tensors move to the GPU (dataset kinds: an assignment another statement reads):
    # the loader over them hands out device batches, so train()'s copies are no pinned copies (R187)
    ("features = torch.randn(64, 8)", "features = torch.randn(64, 8).cuda()",
     [("TPL101", 7), ("TPL605", 15)]),
    ("features = torch.randn(64, 8).cuda()", "features = torch.randn(64, 8)",
     [("TPL605", 15), ("TPL104", 35), ("TPL104", 35)]),
]
# The module facts' loop targets are the file's: ``xs = chunk[0]`` takes a batch because a loop
# above binds ``chunk`` (TPL502 wants a batch moved), and stops when that loop is renamed.
LOOP_TARGETS = textwrap.dedent('''\
    import torch
    from torch.utils.data import DataLoader
    from mydata import build


    def read(loader):
        for chunk in loader:
            pass


    def step(model):
        xs = chunk[0]
        return model(xs.cuda())


    loader = DataLoader(build(), batch_size=2, num_workers=2)
    ''')
LOOP_TARGET_EDITS = [
    (None, None, [("TPL502", 16)]),
    ("for chunk in loader:", "for piece in loader:", []),
    ("num_workers=2", "num_workers=3", []),
    ("for piece in loader:", "for chunk in loader:", [("TPL502", 16)]),
    ("num_workers=3", "num_workers=2", [("TPL502", 16)]),
]

# What a dataset is made of, through a name bound in a statement the edit does not touch: a CUDA
# tensor cannot be pinned (TPL502 goes).
DATASET_KINDS = textwrap.dedent('''\
    import torch
    from torch.utils.data import DataLoader

    data = torch.randn(64, 8)
    ds = data


    def train(model):
        loader = DataLoader(ds, batch_size=8, num_workers=4)
        for x in loader:
            model(x.cuda())
    ''')
DATASET_KIND_EDITS = [
    (None, None, [("TPL502", 9)]),
    ("torch.randn(64, 8)", "torch.randn(64, 8).cuda()", [("TPL101", 4)]),
    ("batch_size=8", "batch_size=16", [("TPL101", 4)]),
    ("torch.randn(64, 8).cuda()", "torch.randn(64, 8)", [("TPL502", 9)]),
    ("torch.randn(64, 8)", "load()", [("TPL502", 9)]),
]


# Whether a loader pins memory, edited in a statement of its own: the batch a loop in another
# definition hands to a helper is pinned there or not (R155), though that definition is not edited.
PINNED_ACROSS = textwrap.dedent('''\
    import torch
    from torch.utils.data import DataLoader

    loader = DataLoader(range(8), batch_size=4, num_workers=2, pin_memory=False)


    def step(model, optimizer, batch):
        x = batch.cuda()
        loss = model(x).sum()
        loss.backward()
        optimizer.step()


    def train(model, optimizer):
        for batch in loader:
            step(model, optimizer, batch)
    ''')
PINNED_EDITS = [
    (None, None, []),
    ("pin_memory=False", "pin_memory=True", [("TPL104", 8)]),
    ("batch_size=4", "batch_size=2", [("TPL104", 8)]),
    ("pin_memory=True", "pin_memory=False", []),
]


@pytest.mark.parametrize("text, edits", [(FACTS_ACROSS, FACT_EDITS), (LOOP_TARGETS, LOOP_TARGET_EDITS),
                                         (DATASET_KINDS, DATASET_KIND_EDITS), (PINNED_ACROSS, PINNED_EDITS)],
                         ids=["facts", "loop-targets", "dataset-kinds", "pinned-loaders"])
def test_edits_that_change_a_fact_another_statement_reads(tmp_path, text, edits):
    """Through the server's path, each edit's lint is a fresh lint of the text, whole diagnostics,
    while the statements the edits do not touch keep their parts of the module facts."""
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "demo"\n', encoding="utf-8")
    path = tmp_path / "train.py"
    path.write_text(text, encoding="utf-8")
    projects = Projects()
    for version, (old, new, expected) in enumerate(edits, start=1):
        if old is not None:
            assert text.count(old) == 1, old
            text = text.replace(old, new)
        result, error = lint_text(projects, path, text, version, None)
        assert error is None
        fresh = analyse(text, str(path), result.codes, result.line_length)  # no memo: a fresh lint
        assert describe(result.findings, result.noqa_rows) == describe(*fresh), (version, old)
        assert [(f.code, f.line) for f in result.findings] == expected, (version, old)
    memo = projects.for_path(path)._memos[str(path)]
    assert memo.spliced == len(edits) - 1  # every edit kept the other statements' trees
    assert memo.parts_kept > 0 and memo.parts_made > 0  # parts were kept, and made again


# Top-level definitions whose summary records read the rest of the module: a decorator handed a
# module-level name (where its value lives), a class body that calls a module-level instance, a
# loop over a module-level name (a step loop when that name is a loader), a name defined twice, a
# class with an ``if`` in its body.
SUMMARY_TEXT = textwrap.dedent('''\
    import torch
    from torch.utils.data import DataLoader
    from helpers import Tool, make, register

    CONFIG = make()
    tool = Tool()
    feed = make()


    @register(CONFIG)
    def step(model, batch):
        loss = model(batch).sum()
        loss.backward()


    class Trainer:
        made = tool(CONFIG)

        def fit(self, model, loader):
            for batch in loader:
                step(model, batch)


    class Switch:
        if torch.cuda.is_available():
            device = "cuda"


    def twice():
        return 1


    def twice():
        return 2


    def run(model, loader):
        for epoch in range(3):
            for batch in loader:
                step(model, batch)


    def make_feed():
        return DataLoader(range(3))


    def consume(feed):
        for item in feed:
            show(item)


    def log_value(value):
        recorder.add(value + 1)
    ''')
SUMMARY_EDITS = [
    ("CONFIG = make()", "CONFIG = 3"),
    ("tool = Tool()", "tool = make()"),
    ("return 2", "return 3"),
    ('device = "cuda"', 'device = "cpu"'),
    ("CONFIG = 3", "CONFIG = make()"),
    ("tool = make()", "tool = Tool()"),
    ("loss.backward()", "loss.item()"),
    ("for epoch in range(3):", "for epoch in range(4):"),
    # ``feed`` becomes a loader: the loop in consume(), not edited, becomes a step loop
    ("feed = make()", "feed = make_feed()"),
    ("feed = make_feed()", "feed = make()"),
    # ``recorder`` becomes a name bound at class level: the call in log_value(), not edited, may
    # now reach a project function, and where its argument lives is recorded
    # (project_index._Summariser._resolvable); the import table stays the same
    ("made = tool(CONFIG)", "recorder = tool(CONFIG)"),
    ("recorder = tool(CONFIG)", "made = tool(CONFIG)"),
]


def test_summaries_through_the_memo_are_fresh_summaries():
    """The project index's summary of each text, its top-level definitions taken from the last
    lint's where they did not change (edit_reuse.reuse_definitions), is a fresh summary, key order
    included: over the edits above and over random edits."""
    import json

    from torchperf_lint.analysis.project_index import summarize

    def texts():
        text = SUMMARY_TEXT
        yield text
        for old, new in SUMMARY_EDITS:
            assert text.count(old) == 1, old
            text = text.replace(old, new)
            yield text
        # (how many random texts parse depends on which spec cases base_text() picks: enough seeds
        # that well over 40 do whatever the spec-case folder holds)
        for seed in range(5):
            rng = random.Random(seed)
            text = base_text()
            for _ in range(30):
                yield text
                text = edit(text, rng)

    memo = DocumentMemo()
    compared = 0
    for text in texts():
        try:
            fresh = summarize(ast.parse(text))
        except SyntaxError:
            continue
        with reusing(memo):
            reused = summarize(memo.tree_for(text))
        assert json.dumps(reused, default=repr) == json.dumps(fresh, default=repr), text
        compared += 1
    assert compared > 40 and memo.parts_kept > 0 and memo.parts_made > 0


def test_a_spliced_tree_is_the_full_parse():
    """Top-level statements around the change parsed alone and put back, line numbers and columns
    included; or None (the whole text is parsed) where that could differ."""
    base = textwrap.dedent('''\
        import torch


        @decorator(1)
        def f(x):
            return x + 1  # one
        # a comment between statements

        a = 1; b = 2
        class C:
            y = "é" + 'two'
        z = f(3)
        u = (1,
             2); v = 3
        w = 4; t = (5,
                    6)
        ''')
    cases = [
        ("return x + 1", "return x + 22", True),  # inside a function
        ("@decorator(1)", "@decorator(12)", True),  # on the decorator line
        ("a = 1; b = 2", "a = 10; b = 20", True),  # two statements on one line
        ("u = (1,", "u = (10,", True),  # a statement that ends on the line where the next starts
        ("6)", "60)", True),  # ... and one that starts on the line where the one before ends
        ('y = "é"', 'y = "éé"', True),  # columns after a non-ASCII character
        ("# a comment between statements", "q = 1", False),  # a gap line turned into code
        ("z = f(3)", "    z = f(3)", False),  # indented: it joins the class body above
        ("z = f(3)", "z = f(3", False),  # a syntax error: the whole parse reports it
        ("return x + 1  # one", "return x + \\", False),  # continues on the next line
        ("return x + 1  # one\n# a comment between statements", "return x + 2\nq = 1", False),  # and the gap
        ("import torch", "from __future__ import annotations", True),  # (ast.parse: no future semantics)
    ]
    for old, new, spliced in cases:
        assert old in base
        memo = DocumentMemo()
        memo.tree_for(base)
        text = base.replace(old, new, 1)
        try:
            expected = ast.dump(ast.parse(text), include_attributes=True)
        except SyntaxError:
            expected = None
        try:
            got = ast.dump(memo.tree_for(text), include_attributes=True)
        except SyntaxError:
            got = None
        assert got == expected, (old, new)
        assert memo.spliced == (1 if spliced else 0), (old, new)


def test_a_changed_line_count_keeps_the_statements_above_the_change():
    """A change that adds or removes lines: the statements above the last one that starts before
    the first changed line are the last tree's (the same objects; those below it too where the
    change lies inside statements, moved: the next test), and what is parsed again gets its line
    numbers moved; or the whole text is parsed where nothing above can be kept."""
    base = textwrap.dedent('''\
        import torch


        @decorator(1)
        def f(x):
            return x + 1  # one
        # a comment between statements

        a = 1; b = 2
        class C:
            y = "é" + 'two'
        z = f(3)
        u = (1,
             2); v = 3
        ''')
    cases = [
        ("    return x + 1  # one\n", "    y = x\n    return x + 1  # one\n", 1),  # a line typed in f
        ("# a comment between statements\n", "", 1),  # a gap line deleted
        ("# a comment between statements\n", "# a comment\nq = 1\n", 1),  # a gap line turned into two
        ("z = f(3)\n", "    w = 1\nz = f(3)\n", 4),  # indented: it joins the class body above
        ("a = 1; b = 2\n", "a = 1; b = 2\nc = 3\n", 2),  # after two statements on one line
        ("     2); v = 3\n", "     2,\n     3); v = 3\n", 6),  # inside a statement over two lines
        ("z = f(3)\n", "z = f(3\n\n", None),  # a syntax error: the whole parse reports it
        ("import torch\n", "import torch\nimport numpy\n", None),  # nothing above the change
        ("import torch\n", "\nimport torch\n", None),
    ]
    for old, new, kept in cases:
        assert old in base
        memo = DocumentMemo()
        before = memo.tree_for(base)
        text = base.replace(old, new, 1)
        try:
            expected = ast.dump(ast.parse(text), include_attributes=True)
        except SyntaxError:
            expected = None
        try:
            tree = memo.tree_for(text)
            got = ast.dump(tree, include_attributes=True)
        except SyntaxError:
            tree = got = None
        assert got == expected, (old, new)
        assert memo.spliced == (0 if kept is None else 1), (old, new)
        if kept is not None:
            assert all(a is b for a, b in zip(tree.body[:kept], before.body[:kept])), (old, new)
            assert tree.body[kept] is not before.body[kept], (old, new)


def test_statements_below_a_changed_line_count_move_and_keep_their_parts():
    """Lines added or removed inside a statement: the statements below are the last tree's objects
    with their line numbers moved (a full parse's, positions included); a part that holds line
    numbers (where CUDA_VISIBLE_DEVICES is set) is made again for the new lines."""
    from torchperf_lint.analysis.fix_safety import cuda_visible_devices
    from torchperf_lint.analysis.names import ImportTable

    base = textwrap.dedent('''\
        import os
        import torch


        def helper(x):
            return x + 1


        def setup():
            os.environ["CUDA_VISIBLE_DEVICES"] = "0"
        ''')
    memo = DocumentMemo()
    texts = [base, base.replace("    return x + 1\n", "    y = x\n\n    return y + 1\n"), base]
    trees = []
    for text in texts:
        with reusing(memo):
            tree = memo.tree_for(text)
            line = cuda_visible_devices(tree, ImportTable.from_ast(tree))
        fresh = ast.parse(text)
        assert ast.dump(tree, include_attributes=True) == ast.dump(fresh, include_attributes=True)
        assert line == cuda_visible_devices(fresh, ImportTable.from_ast(fresh)) == text.count("\n")
        trees.append(tree)
    assert memo.spliced == 2
    assert trees[1].body[-1] is trees[0].body[-1] and trees[2].body[-1] is trees[0].body[-1]  # moved, kept
    assert trees[1].body[2] is not trees[0].body[2]  # helper, parsed again


def test_unit_parses_are_reused_and_forgotten_when_unused():
    memo = DocumentMemo()
    parses = []

    def parse(code):
        parses.append(code)
        return object()

    with reusing(memo):
        first = memo.unit_module("a\n", parse)
        memo.unit_module("b\n", parse)
    with reusing(memo):
        assert memo.unit_module("a\n", parse) is first  # kept: used by the last lint
    with reusing(memo):
        memo.unit_module("b\n", parse)  # forgotten: the lint before did not use it
    assert parses == ["a\n", "b\n", "b\n"]


def test_walks_are_those_of_ast_and_ast_walk_is_restored():
    tree = ast.parse("def f(x):\n    return [y for y in x if y]\n")
    expected = [type(n).__name__ for n in ast.walk(tree)]
    original = ast.walk
    with reusing(DocumentMemo()):
        assert ast.walk is not original
        assert [type(n).__name__ for n in ast.walk(tree)] == expected
        assert [type(n).__name__ for n in ast.walk(tree)] == expected  # the second walk: the list
        assert list(ast.walk(tree.body[0].args)) == list(original(tree.body[0].args))
    assert ast.walk is original and edit_reuse.current() is None


def test_a_module_walk_from_its_statements_walks_is_ast_walk():
    """``ast.walk(module)`` made from the levels of its statements' walks (kept across lints for
    the statements a change did not touch): the same node objects in the same order, over spliced
    trees, nested definitions of different depths, and a module with ``type_ignores``."""
    text = base_text()
    rng = random.Random(5)
    memo = DocumentMemo()
    compared = 0
    for _ in range(25):
        try:
            ast.parse(text)
        except SyntaxError:
            text = edit(base_text(), rng)
            continue
        with reusing(memo):
            tree = memo.tree_for(text)
            walked = list(ast.walk(tree))
        expected = list(edit_reuse._original_walk(tree))
        assert len(walked) == len(expected) and all(a is b for a, b in zip(walked, expected))
        compared += 1
        text = edit(text, rng)
    assert compared > 10 and memo.spliced > 0
    ignored = ast.parse("x = 1  # type: ignore\ndef f():\n    class A:\n        y = [z for z in ()]\n",
                        type_comments=True)
    assert ignored.type_ignores
    with reusing(DocumentMemo()):
        walked = list(ast.walk(ignored))
    assert len(walked) == len(list(edit_reuse._original_walk(ignored))) and all(
        a is b for a, b in zip(walked, edit_reuse._original_walk(ignored)))


def test_an_unsaved_change_does_not_list_the_project_again(tmp_path, monkeypatch):
    """Who imports the linted file: the import words of an editor's unsaved texts are read from
    those texts at every change; the files on disk only when listed again (after a while, or when
    the editor says files changed)."""
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "demo"\n', encoding="utf-8")
    (tmp_path / "helper.py").write_text("def helper():\n    return 1\n", encoding="utf-8")
    (tmp_path / "user.py").write_text("import os\n", encoding="utf-8")
    project = Project(str(tmp_path))
    listed = []
    files = Project.files
    monkeypatch.setattr(Project, "files", lambda self: listed.append(1) or files(self))
    user = str(tmp_path / "user.py")
    assert project.importers("helper") == []
    project.set_overlays({user: "from helper import helper\n"})
    assert project.importers("helper") == [user]
    project.set_overlays({user: "import os\n"})
    assert project.importers("helper") == []
    assert len(listed) == 1
    (tmp_path / "other.py").write_text("import helper\n", encoding="utf-8")
    project.files_changed()
    assert project.importers("helper") == [str(tmp_path / "other.py")]
    assert len(listed) == 2
    project.set_overlays({})  # the unsaved text closed: the disk counts again, listed again
    assert project.importers("helper") == [str(tmp_path / "other.py")]
    assert len(listed) == 3


def test_fstring_regions_piece_by_piece_are_the_files():
    base = "\n".join([
        "import torch",
        'x = f"{torch.zeros(2).cuda()}"',
        "",
        "",
        "def f(a):",
        "    return f\"\"\"{a}",
        "    {a!r:>{3}}\"\"\" + F'b'  # f'not a string'",
        "",
        '@decorator(f"{1}")',
        "class C:",
        '    y = "plain"',
        "",
    ])
    memo = DocumentMemo()
    for text in (base, base.replace("{a!r", "{a!s"), base.replace('"plain"', 'f"x"'), "import torch\nx = 1\n"):
        lines = split_lines(text)
        got = memo.fstring_regions(lines, ast.parse(text), fstrings.fstring_regions_or_none,
                                   fstrings.may_hold_fstrings)
        assert got == fstrings.fstring_regions(lines), text
    assert len(fstrings.fstring_regions(split_lines(base))) == 4


def test_fstring_pieces_are_tokenized_once_and_a_failed_piece_means_no_regions():
    text = 'import torch\nx = f"{1}"\ny = f"{2}"\n'
    calls = []

    def regions_or_none(piece):
        calls.append("".join(piece))
        return None if "bad" in "".join(piece) else fstrings.fstring_regions_or_none(piece)

    memo = DocumentMemo()
    lines = split_lines(text)
    assert memo.fstring_regions(lines, ast.parse(text), regions_or_none, fstrings.may_hold_fstrings) == [
        (2, 4, 2, 10, '"'), (3, 4, 3, 10, '"')]
    changed = text.replace("{2}", "{3}")
    assert memo.fstring_regions(split_lines(changed), ast.parse(changed), regions_or_none,
                                fstrings.may_hold_fstrings) == [(2, 4, 2, 10, '"'), (3, 4, 3, 10, '"')]
    assert calls == ["import torch\n", 'x = f"{1}"\n', 'y = f"{2}"\n', 'y = f"{3}"\n']  # the changed piece only
    broken = changed.replace("import torch", "import torch  # bad")
    assert memo.fstring_regions(split_lines(broken), ast.parse(broken), regions_or_none,
                                fstrings.may_hold_fstrings) == []


def test_work_carries_over_only_to_the_next_lint(monkeypatch):
    """A statement's walk is listed once and kept for the next lint; a text without f-strings is
    not tokenized at all."""
    listed = []
    original = edit_reuse._original_walk
    monkeypatch.setattr(edit_reuse, "_original_walk", lambda node: listed.append(node) or original(node))
    tree = ast.parse("def f(x):\n    return x\n\n\ndef g(y):\n    return y\n")
    f, g = tree.body
    memo = DocumentMemo()
    with reusing(memo):
        list(ast.walk(f))
        list(ast.walk(g))
    with reusing(memo):
        list(ast.walk(f))  # kept from the lint before
    with reusing(memo):
        list(ast.walk(g))  # not used by the lint before: listed again
    assert listed == [f, g, g]
    calls = []
    text = "import torch\nx = 1\n"
    assert memo.fstring_regions(split_lines(text), ast.parse(text), lambda piece: calls.append(piece) or [],
                                fstrings.may_hold_fstrings) == []
    assert calls == []
