"""Forms found on real code that the rules cover (issue 20, item 4): whole diagnostics (line,
column, message, fix and its applicability, and what the fix writes), each form with its silent
twin."""

from __future__ import annotations

import textwrap

from torchperf_lint.catalog import SAFE
from torchperf_lint.engine import fix_source
from _diagnostics import (
    CPU_CREATION_TEMPLATE as FACTORY,
    PINNED_COPY as BLOCKING,
    SYNC_TEMPLATE as SYNC,
    UNPINNED_LOADER as NO_PIN,
    rule_diagnostics as diagnostics,
)


# ---- TPL102 ---------------------------------------------------------------------------------------
def test_tpl102_formatting_max_min_and_bool_functions():
    source = """
        import torch
        def train(model, loader, optimizer, pbar, logger, reference):
            best = 0.0
            for x, y in loader:
                loss = model(x.cuda()).sum()
                loss.backward()
                optimizer.step()
                pbar.set_description(f"loss {loss:.3f}")
                logger.info("loss %g" % loss)
                logger.info("{:.4f}".format(loss))
                best = min(best, loss)
                same = torch.equal(loss, reference)
                tag = f"step {len(x)}"
        """
    assert diagnostics(source, "TPL102") == [
        (9, 29, SYNC.format(what="formatting a tensor"), None, None),
        (10, 20, SYNC.format(what="formatting a tensor"), None, None),
        (11, 20, SYNC.format(what="formatting a tensor"), None, None),
        (12, 15, SYNC.format(what="builtin `min()` of tensors"), None, None),
        (13, 15, SYNC.format(what="`torch.equal()` (a Python bool)"), None, None),
    ]


def test_tpl102_a_budget_and_the_last_batch_pick_a_few_steps():
    """minGPT's adder prints at most five mistakes (``if wrong and printed < 5: printed += 1``),
    yolov5 validates on the last batch (``if i == len(loader) - 1:``): a few steps, not every one.
    Refilling the budget every batch, or testing ``!=``, runs it every step."""
    source = """
        import torch
        def evaluate(model, loader, is_wrong, opt):
            printed = 0
            for i, (x, y) in enumerate(loader):
                pred = model(x.cuda()).argmax(-1)
                pred.float().sum().backward()
                opt.step()
                {refill}
                for j in range(x.size(0)):
                    if is_wrong(j) and printed < 5:
                        printed += 1
                        print("predicted %d" % pred[j])
                if i {op} len(loader) - 1:
                    print(pred.sum().item())
        """
    assert diagnostics(source.format(refill="", op="=="), "TPL102") == []
    assert diagnostics(source.format(refill="printed = 0", op="!="), "TPL102") == [
        (13, 16, SYNC.format(what="printing a tensor"), None, None),
        (15, 18, SYNC.format(what="`.item()`"), None, None),
    ]


def test_tpl102_a_branch_that_moves_its_own_mark_runs_once_per_period():
    """vicreg: ``if rank == 0 and now - last_logging > log_freq_time:`` logs the loss and sets
    ``last_logging = now``: once per period, an interval on the clock. Without moving the mark the
    branch runs on every step after the first period."""
    source = """
        import time
        import torch
        def train(model, loader, opt, log_freq_time, rank):
            last_logging = time.time()
            for x in loader:
                loss = model(x.cuda()).sum()
                loss.backward()
                opt.step()
                now = time.time()
                if rank == 0 and now - last_logging > log_freq_time:
                    print(loss.item())
                    {reset}
        """
    assert diagnostics(source.format(reset="last_logging = now"), "TPL102") == []
    assert diagnostics(source.format(reset="pass"), "TPL102") == [
        (12, 18, SYNC.format(what="`.item()`"), None, None),
    ]


def test_tpl102_a_pool_filled_up_to_its_size_is_a_budget():
    """CycleGAN's image pool: ``if len(buffer) < buffer_size: buffer.append(b.cpu())`` copies only
    until the pool is full; replacing a random entry afterwards copies on every other step."""
    source = """
        import random
        import torch
        buffer_size = 50
        def pool(buffer, batch):
            out = []
            for b in batch:
                if len(buffer) < buffer_size:
                    buffer.append(b.cpu())
                    out.append(b)
                elif random.uniform(0, 1) > 0.5:
                    buffer[random.randint(0, buffer_size - 1)] = b.cpu()
            return out
        def train(model, loader, opt, fakes):
            for x in loader:
                fake = model(x.cuda())
                fake.sum().backward()
                opt.step()
                pool(fakes, fake)
        """
    assert diagnostics(source, "TPL102") == [
        (12, 57, SYNC.format(what="`.cpu()`") + " (called every step from <string>:19)", None, None),
    ]


def test_tpl102_a_copy_only_on_a_device_that_lacks_the_op_is_host_needed():
    """yolov5's NMS: ``mps = "mps" in device.type; if mps: prediction = prediction.cpu()`` runs only
    on MPS, where the host must run NMS; ``!= "cpu"`` copies on CUDA too."""
    source = """
        import torch
        def nms(prediction):
            {test}
                prediction = prediction.cpu()
            return prediction
        def train(model, loader, opt):
            for x in loader:
                model(x.cuda()).sum().backward()
                opt.step()
                nms(model(x.cuda()))
        """
    mps = 'mps = "mps" in prediction.device.type\n            if mps:'
    assert diagnostics(source.format(test=mps), "TPL102") == []
    assert diagnostics(source.format(test='if prediction.device.type != "cpu":'), "TPL102") == [
        (5, 21, SYNC.format(what="`.cpu()`") + " (called every step from <string>:11)", None, None),
    ]


def test_tpl102_accumulation_update_one_call_deeper():
    source = """
        import torch
        class Trainer:
            def step_optimizer(self):
                self.scaler.step(self.optimizer)
                self.scaler.update()
            def fit(self, loader, accum):
                for i, x in enumerate(loader):
                    loss = self.model(x.cuda()).sum()
                    loss.backward()
                    if (i + 1) % accum == 0:
                        self.history.append(loss.item())
                        self.step_optimizer()
                    if i % 100 == 0:
                        self.log(loss.item())
        """
    assert diagnostics(source, "TPL102") == [(12, 36, SYNC.format(what="`.item()`"), None, None)]


def test_tpl102_counters_of_a_moved_model_are_host_values():
    silent = """
        import torch
        from models import Tacotron
        def train(loader, optimizer, device):
            model = Tacotron().to(device)
            for x in loader:
                loss = model(x.to(device)).sum()
                loss.backward()
                optimizer.step()
                k = int(model.get_step()) // 1000
                print(f"{k}k", model.current_epoch)
        """
    assert diagnostics(silent, "TPL102") == []
    # the loss of the same loop is still read every step
    flagged = silent.replace('print(f"{k}k", model.current_epoch)', "print(float(loss))")
    assert diagnostics(flagged, "TPL102") == [(11, 14, SYNC.format(what="`float()` of a tensor"), None, None)]


def test_tpl102_host_values_through_ops_and_an_unmoved_model():
    source = """
        import torch
        import torch.nn as nn
        import torch.nn.functional as F
        class MLP(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(10, 2)
            def forward(self, x):
                return self.fc(x)
        def train(xs, ys):
            X, Y = torch.tensor(xs), torch.tensor(ys)
            W = torch.randn(10, 2)
            model = MLP()
            optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
            for i in range(100):
                ix = torch.randint(0, X.shape[0], (32,))
                manual = F.cross_entropy(torch.tanh(X[ix] @ W), Y[ix])
                loss = F.cross_entropy(model(X[ix]), Y[ix])
                loss.backward()
                optimizer.step()
                print(loss.item(), manual.item())
        """
    assert diagnostics(source, "TPL102") == []
    moved = source.replace("model = MLP()", "model = MLP().cuda()")
    assert diagnostics(moved, "TPL102") == [(22, 14, SYNC.format(what="`.item()`"), None, None)]


def test_tpl102_host_needed_values():
    source = """
        import time
        import torch
        from torch.nn.utils.rnn import pack_padded_sequence
        def train(model, loader, optimizer, eos_id):
            for tokens, lengths in loader:
                tokens, lengths = tokens.cuda(), lengths.cuda()
                packed = pack_padded_sequence(tokens, lengths.cpu(), batch_first=True)
                sizes = lengths.tolist()
                parts = tokens.split(sizes)
                loss = model(packed, parts, tokens.view(int(lengths.sum()), -1)).sum()
                torch.cuda.synchronize()
                start = time.perf_counter()
                loss.backward()
                optimizer.step()
                kept = lengths.cpu()
        def decode(model, loader, eos_id):
            for src in loader:
                ys = src.cuda()
                for _ in range(50):
                    next_id = model(ys)[:, -1].argmax(-1)
                    if next_id.item() == eos_id:
                        break
        """
    assert diagnostics(source, "TPL102") == [(16, 15, SYNC.format(what="`.cpu()`"), None, None)]
    # a name held for torch is host-needed only while every use of it is
    # R3 (the lead's reading, 2026-11-26): host-needed wins. The sections still need the host
    # when they are also printed; a value only printed still syncs.
    used_elsewhere = source.replace("parts = tokens.split(sizes)", "parts = tokens.split(sizes); print(sizes)")
    assert diagnostics(used_elsewhere, "TPL102") == [(16, 15, SYNC.format(what="`.cpu()`"), None, None)]
    only_printed = source.replace("parts = tokens.split(sizes)", "print(sizes)")
    assert diagnostics(only_printed, "TPL102") == [
        (9, 16, SYNC.format(what="`.tolist()`"), None, None),
        (16, 15, SYNC.format(what="`.cpu()`"), None, None),
    ]


# ---- TPL101 ---------------------------------------------------------------------------------------
LEGACY = ("tensor is created on the CPU by the legacy constructor `torch.{factory}(...)` and then copied to "
          "the device; create it there with `{modern}`")


def test_tpl101_legacy_constructors():
    source = """
        import torch
        def build(n, m, i, data, device):
            a = torch.Tensor(n, m).cuda()
            b = torch.LongTensor([i]).to(device)
            c = torch.Tensor([0.5, 2.0]).to(device)
            d = torch.Tensor(data).cuda()
            return a, b, c, d
        """
    assert diagnostics(source, "TPL101") == [
        (4, 8, LEGACY.format(factory="Tensor", modern="torch.empty(..., device=...)"), None, None),
        (5, 8, LEGACY.format(factory="LongTensor", modern="torch.tensor(..., dtype=torch.int64, device=...)"),
         None, None),
        (6, 8, LEGACY.format(factory="Tensor",
                             modern="torch.tensor(..., dtype=torch.get_default_dtype(), device=...)"), None, None),
    ]


def test_tpl101_number_data_and_its_safe_fix():
    source = textwrap.dedent("""\
        import math
        import torch
        def masks(x, device, n):
            low = torch.tensor(float("-inf")).to(x.device)
            pi = torch.tensor(math.pi).cuda()
            minus = torch.tensor(-1).to(device)
            later = torch.tensor(float(n)).to(device)
            return low, pi, minus, later
        """)
    assert diagnostics(source, "TPL101") == [
        (4, 10, FACTORY.format(factory="tensor"), SAFE, "create the tensor with device=x.device"),
        (5, 9, FACTORY.format(factory="tensor"), SAFE, 'create the tensor with device="cuda"'),
        (6, 12, FACTORY.format(factory="tensor"), SAFE, "create the tensor with device=device"),
    ]
    fixed, count = fix_source(source, codes=["TPL101"])
    assert count == 3
    assert fixed.splitlines()[3:6] == [
        '    low = torch.tensor(float("-inf"), device=x.device)',
        '    pi = torch.tensor(math.pi, device="cuda")',
        "    minus = torch.tensor(-1, device=device)",
    ]


# ---- TPL104 ---------------------------------------------------------------------------------------


def test_tpl104_pinning_belongs_to_the_iterated_loader():
    source = textwrap.dedent("""\
        import torch
        from torch.utils.data import DataLoader
        from data import eval_loader
        def build(ds):
            return DataLoader(ds, batch_size=8, num_workers=2, pin_memory=True), DataLoader(ds, num_workers=2)
        def main(model, ds):
            train_loader, val_loader = build(ds)
            for x in train_loader:
                model(x.cuda()).sum().backward()
            for x in val_loader:
                model(x.cuda())
            for x in eval_loader():
                model(x.cuda())
        """)
    assert diagnostics(source, "TPL104") == [(9, 14, BLOCKING, SAFE, "add non_blocking=True")]
    fixed, count = fix_source(source, codes=["TPL104"])
    assert count == 1 and "model(x.cuda(non_blocking=True)).sum().backward()" in fixed


def test_tpl104_monai_s_dataloader_is_torch_s():
    """MONAI's ``DataLoader`` subclasses torch's and hands ``pin_memory`` on (MONAI tutorials'
    DDP scripts): its pinned batches copied blocking are flagged, its unpinned ones are not."""
    source = textwrap.dedent("""\
        import torch
        from monai.data import DataLoader
        import monai
        def main(model, train_ds, val_ds, device):
            train_loader = DataLoader(train_ds, batch_size=8, num_workers=2, pin_memory=True)
            val_loader = monai.data.DataLoader(val_ds, num_workers=2)
            for batch in train_loader:
                model(batch["img"].to(device)).sum().backward()
            for batch in val_loader:
                model(batch["img"].to(device))
        """)
    assert diagnostics(source, "TPL104") == [(8, 14, BLOCKING, SAFE, "add non_blocking=True")]
    fixed, count = fix_source(source, codes=["TPL104"])
    assert count == 1 and 'model(batch["img"].to(device, non_blocking=True)).sum().backward()' in fixed
    compile(fixed, "<fixed>", "exec")


# ---- TPL502 ---------------------------------------------------------------------------------------


def test_tpl502_batch_unpacked_from_a_loader_reached_through_tuple_unpacking():
    source = """
        import torch
        from torch.utils.data import DataLoader
        def build(ds):
            return DataLoader(ds, batch_size=8, num_workers=2), None
        def main(model, ds):
            train_dl, _ = build(ds)
            for data in train_dl:
                inp, lab = data
                model(inp.cuda())
        """
    assert diagnostics(source, "TPL502") == [(5, 11, NO_PIN, SAFE, "pass pin_memory=True")]
    moved_elsewhere = source.replace("model(inp.cuda())", "model(inp)")
    assert diagnostics(moved_elsewhere, "TPL502") == []


# ---- TPL602 ---------------------------------------------------------------------------------------
GRAD = ("`{model}` is evaluated in a loop after `{model}.eval()` with autograd on: every call records the "
        "graph and keeps activations alive; wrap the loop in `with torch.inference_mode():` (or `torch.no_grad()`)")


def test_tpl602_differentiating_functions_are_training():
    source = """
        import torch
        from torch.autograd import grad
        def penalty(critic, x):
            return grad(critic(x).sum(), x, create_graph=True)[0].norm()
        def train_critic(generator, critic, loader):
            generator.eval()
            for z in loader:
                fake = generator(z)
                gp = penalty(critic, fake)
        def evaluate(generator, loader):
            generator.eval()
            for z in loader:
                fake = generator(z)
        """
    assert diagnostics(source, "TPL602") == [(14, 15, GRAD.format(model="generator"), None, None)]


# ---- TPL603 ---------------------------------------------------------------------------------------
def test_tpl603_legacy_profiler_enabled_positionally():
    source = """
        import torch
        def train(model, loader, optimizer, args):
            with torch.autograd.profiler.profile(args.profile, use_cuda=True) as prof:
                for x in loader:
                    model(x).sum().backward()
                    optimizer.step()
            with torch.autograd.profiler.profile(True, use_cuda=True) as prof:
                for x in loader:
                    model(x).sum().backward()
                    optimizer.step()
        """
    message = ("`torch.autograd.profiler.profile(True, use_cuda=True)` is left on in a training module: a "
               "profiler without `schedule=` records every op of every step (CPU time and memory that grow "
               "with the run); remove it, or turn it on only behind a debug flag (runtime_guard: anomaly mode "
               "observed during training steps)")
    assert diagnostics(source, "TPL603") == [(8, 9, message, None, None)]
