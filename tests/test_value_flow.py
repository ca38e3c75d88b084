"""Where a value lives (value_flow.py) and which loops are step loops (step_loops.py), asked the way
rules ask: through the walker's Context, at the node the walk is at."""

from __future__ import annotations

import ast
import textwrap

import libcst as cst
import pytest

from torchperf_lint.analysis import value_flow as vf
from torchperf_lint.analysis.facts import ModuleFacts
from torchperf_lint.analysis.names import ImportTable
from torchperf_lint.analysis.walker import Context, Rule, walk


def probe(source: str):
    """Run a walk over ``source``; for each ``probe(expr)`` call, record (expr code, kind,
    in_step_loop) at that point of the walk."""
    source = textwrap.dedent(source)
    tree = ast.parse(source)
    table = ImportTable.from_ast(tree)
    ctx = Context(table, ModuleFacts(tree, table))
    seen = []

    class Probe(Rule):
        code = "TPL000"

        def visit_Call(self, node):
            if isinstance(node.func, cst.Name) and node.func.value == "probe":
                expr = node.args[0].value
                seen.append((cst.Module([]).code_for_node(expr), ctx.value_kind(expr), ctx.in_step_loop()))

    walk(cst.parse_module(source), ctx, [Probe(ctx, [])])
    return seen


def kinds(source: str):
    return {code: kind for code, kind, _ in probe(source)}


def test_factories_moves_and_readbacks():
    found = kinds("""
        import numpy as np
        import torch
        a = torch.zeros(3)
        b = a.cuda()
        c = b.cpu().numpy()
        d = torch.ones(2, device="cuda")
        e = torch.from_numpy(np.ones(3))
        f = b.to("cpu")
        g = b.to(torch.float16)
        h = torch.load("x.pt", map_location="cpu")
        probe(a); probe(b); probe(c); probe(d); probe(e); probe(f); probe(g); probe(h)
        probe(b.item()); probe(np.asarray(a)); probe(a + 1); probe(a + b)
    """)
    assert found["a"] == vf.CPU_TENSOR
    assert found["b"] == vf.DEVICE
    assert found["c"] == vf.NUMPY
    assert found["d"] == vf.DEVICE
    assert found["e"] == vf.CPU_TENSOR
    assert found["f"] == vf.CPU_TENSOR
    assert found["g"] == vf.DEVICE  # a dtype change keeps the place
    assert found["h"] in vf.HOST
    assert found["b.item()"] == vf.PYTHON
    assert found["np.asarray(a)"] == vf.NUMPY
    assert found["a + 1"] == vf.CPU_TENSOR
    assert found["a + b"] == vf.DEVICE


def test_tuple_unpacking_pairs_items_and_bindings_keep_their_time():
    found = kinds("""
        import numpy as np
        import torch
        def f(x, y, m):
            a, b = x.cuda()[m], np.zeros(3)
            keep = b
            b = a
            probe(a); probe(keep); probe(b); probe(x); probe(y)
            total = 0.0
            total += 1.5
            probe(total)
            total += a.sum()
            probe(total)
    """)
    assert found["a"] == vf.DEVICE
    assert found["keep"] == vf.NUMPY  # what b held when keep was bound
    assert found["b"] == vf.DEVICE
    assert found["x"] == vf.UNKNOWN and found["y"] == vf.UNKNOWN  # parameters: possibly on the device
    seen = [k for c, k, _ in probe("""
        import torch
        def f(a):
            total = 0.0
            total += 1.5
            probe(total)
            total += a.cuda().sum()
            probe(total)
    """)]
    assert seen == [vf.PYTHON, vf.DEVICE]


def test_loader_batches_are_host_until_moved():
    found = kinds("""
        import torch
        from torch.utils.data import DataLoader
        pinned = DataLoader(ds, pin_memory=True, num_workers=2)
        plain = DataLoader(ds, num_workers=2)
        for step, (x, y) in enumerate(pinned):
            probe(step); probe(x); probe(y["label"])
            x = x.to("cuda")
            probe(x)
        for batch in plain:
            probe(batch)
        it = iter(pinned)
        nxt = next(it)
        probe(nxt)
    """)
    assert found["step"] == vf.PYTHON
    assert found['y["label"]'] == vf.PINNED_BATCH
    assert found["x"] == vf.DEVICE  # the last probe of x: after the move
    assert found["batch"] == vf.UNPINNED_BATCH
    assert found["nxt"] == vf.PINNED_BATCH


def test_loader_over_cuda_tensors_gives_device_batches():
    found = kinds("""
        import torch
        from torch.utils.data import DataLoader, TensorDataset
        ds = TensorDataset(x.cuda(), y.cuda())
        loader = DataLoader(ds, batch_size=8)
        for xb, yb in loader:
            probe(xb)
    """)
    assert found["xb"] not in vf.HOST


def test_comprehension_targets_and_isinstance_guard():
    found = kinds("""
        import numpy as np
        import torch
        arr = np.ones(4)
        vals = [probe(v) for v in arr]
        def f(v):
            if isinstance(v, torch.Tensor):
                probe(v)
    """)
    assert found["v"] == vf.UNKNOWN  # the guard says it is a tensor, not where it lives
    assert probe("""
        import numpy as np
        arr = np.ones(4)
        vals = [probe(v) for v in arr]
    """)[0][1] == vf.NUMPY


def test_step_loops():
    seen = probe("""
        import torch
        def log_losses(losses):
            for k, v in losses.items():
                probe(v)                       # called every step by train()
        def report(rows):
            for r in rows:
                probe(r)                       # nobody's step loop calls it
        def train(model, loader, opt):
            for epoch in range(3):
                for x in loader:
                    loss = model(x)
                    loss.backward()
                    opt.step()
                    log_losses({"l": loss})
                    for p in model.parameters():
                        probe(p)               # nested in a step loop
                    if epoch % 10 == 0:
                        probe(loss)            # interval remedy
                probe(epoch)                   # epoch level
            report([])
    """)
    in_step = {code: step for code, _, step in seen}
    assert in_step == {"v": True, "r": False, "p": True, "loss": False, "epoch": False}


def test_deep_definition_chains_do_not_recurse_without_bound():
    lines = ["import torch", "def f(a):", "    x0 = a.cuda()"]
    lines += [f"    x{i} = x{i - 1} + 1" for i in range(1, 400)]
    lines += ["    probe(x399)"]
    (code, kind, _), = probe("\n".join(lines) + "\n")
    assert kind in (vf.DEVICE, vf.UNKNOWN)


@pytest.mark.parametrize("source", [
    "import torch\nx = x\nprobe(x)\n",
    "import torch\na = b\nb = a\nprobe(b)\n",
])
def test_self_references_are_unknown(source):
    assert probe(source)[0][1] == vf.UNKNOWN


def test_the_other_branch_of_an_if_is_not_seen():
    seen = probe("""
        import numpy as np
        import torch
        def f(cuda):
            x = np.ones(3)
            if cuda:
                x = torch.from_numpy(x).cuda()
            else:
                probe(x)
            probe(x)
    """)
    assert [kind for _, kind, _ in seen] == [vf.NUMPY, vf.DEVICE]


def test_engine_backward_gather_and_model_output_fields():
    # ``accelerator.backward(loss)``: the engine takes the loss, it is not a tensor itself; its
    # collectives give back tensors where the ones given live; a model output's fields are tensors.
    found = kinds("""
        import torch
        def evaluate(model, loader, accelerator):
            for batch in loader:
                outputs = model(**batch)
                accelerator.backward(outputs.loss)
                probe(accelerator.check_trigger())
                probe(outputs.logits)
                preds, labels = accelerator.gather_for_metrics((outputs.logits.argmax(-1), [1, 2]))
                probe(preds)
                probe(labels)
                probe(accelerator.gather(outputs.loss))
                probe(accelerator.gather(3))
                probe(accelerator.gather(torch.zeros(3)))       # a CPU tensor: not known to stay there
                probe(outputs.logits.gather(1, idx))
    """)
    assert found["accelerator.check_trigger()"] == vf.UNKNOWN
    assert found["outputs.logits"] == vf.DEVICE
    assert found["preds"] == vf.DEVICE
    assert found["labels"] == vf.UNKNOWN
    assert found["accelerator.gather(outputs.loss)"] == vf.DEVICE
    assert found["accelerator.gather(3)"] == vf.UNKNOWN
    assert found["accelerator.gather(torch.zeros(3))"] == vf.UNKNOWN
    assert found["outputs.logits.gather(1, idx)"] == vf.DEVICE


def test_a_function_of_the_module_named_like_a_model_is_no_model():
    seen = probe("""
        import torch
        def evaluate_model(c):
            return c
        def sweep(cs):
            for c in cs:
                probe(evaluate_model(c))
        class Sweep:
            def run_model(self, c):
                return c
            def sweep(self, cs, model):
                for c in cs:
                    probe(self.run_model(c))
                for c in cs:
                    probe(model(c))
    """)
    assert seen == [
        ("evaluate_model(c)", vf.UNKNOWN, False),
        ("self.run_model(c)", vf.UNKNOWN, False),
        ("model(c)", vf.DEVICE, True),
    ]


def test_modules_counters_legacy_constructors_and_unmoved_models():
    found = kinds("""
        import torch
        import torch.nn as nn
        from models import Tacotron
        class MLP(nn.Module):
            def forward(self, x):
                return x
        def run(device, x):
            moved = Tacotron().to(device)
            net = MLP().cuda()
            kept = MLP()
            legacy = torch.LongTensor([1, 2])
            host = torch.zeros(3)
            probe(moved); probe(moved.get_step()); probe(net.global_step())
            probe(legacy); probe(torch.FloatTensor(2, 3).cuda())
            probe(kept(host)); probe(net(host)); probe(kept(x))
    """)
    assert found["moved"] == vf.UNKNOWN  # a module, not a tensor
    assert found["moved.get_step()"] == vf.UNKNOWN
    assert found["net.global_step()"] == vf.UNKNOWN
    assert found["legacy"] == vf.CPU_TENSOR
    assert found["torch.FloatTensor(2, 3).cuda()"] == vf.DEVICE
    assert found["kept(host)"] == vf.CPU_TENSOR  # built here, never moved, host input
    assert found["net(host)"] == vf.DEVICE  # moved
    assert found["kept(x)"] == vf.DEVICE  # an input of unknown origin
