"""Forms of holdout12's first score (2026-11-26, the lead; tuned on that set): what performs a
step, and what a Lightning step hands back to its framework. Each file is linted by its real path."""

from __future__ import annotations

from _diagnostics import ITEM_SYNC as SYNC
from _project_files import findings_without_col as findings, write

ALLCLOSE = SYNC.replace("`.item()`", "`torch.allclose()` (a Python bool)")
SYNCHRONIZE = SYNC.replace("`.item()`", "`torch.cuda.synchronize()`")


# EasyContext's shape: a checkpointing autograd.Function whose backward recomputes a segment with
# torch.autograd.backward and calls a communication helper that synchronizes per round; a test
# function and a benchmark in the same library module. None of them performs a training step.
ATTENTION = {
    "pyproject.toml": "",
    "attn/__init__.py": "",
    "attn/ring.py": """
        import torch
        from torch.autograd import Function


        def ring_backward(dout, q, k, v):
            for step in range(4):
                torch.cuda.synchronize()
                dout = dout + q * step
            return dout, k, v


        class CheckpointAttention(Function):
            @staticmethod
            def forward(ctx, q, k, v):
                ctx.save_for_backward(q, k, v)
                return q + k + v

            @staticmethod
            def backward(ctx, dout):
                q, k, v = ctx.saved_tensors
                dq, dk, dv = ring_backward(dout, q, k, v)
                torch.autograd.backward([q, k, v], [dq, dk, dv])
                return dq, dk, dv


        def test_op(ref):
            q = torch.randn(4, device="cuda", requires_grad=True)
            out = (q * 2).sum()
            out.backward()
            assert torch.allclose(q.grad, ref)


        def bench(fn, o, do, n):
            bwd_fn = lambda: o.backward(do, retain_graph=True)
            for _ in range(n):
                fn()
                torch.cuda.synchronize()
            return bwd_fn
        """,
    "attn/trainer.py": """
        import torch


        def train_step(model, batch, opt):
            loss = model(batch).sum()
            loss.backward()
            opt.step()
            assert torch.allclose(loss, loss)
        """,
}


def test_autograd_functions_tests_and_lambdas_perform_no_step(tmp_path):
    """rules.md: a function whose own body calls backward performs one step. Not the backward of a
    ``torch.autograd.Function`` (autograd runs it inside the step's own backward: the lead's reading
    R20), not a ``test_*`` function (a test runner calls it once), and not a function whose backward
    is in a lambda it hands on (the lambda runs when it is called). ``train_step`` still is one."""
    write(tmp_path, ATTENTION)
    assert findings(tmp_path, "attn/ring.py") == []
    assert findings(tmp_path, "attn/trainer.py") == [("TPL102", 8, ALLCLOSE)]


# ICON's shape: training_step puts .item() values in a dict, hands it to converters and a dict
# comprehension, and returns what they made to Lightning (its 'log' and 'progress_bar' API).
ICON_LIKE = {
    "pyproject.toml": "",
    "apps/icon.py": """
        import torch
        import lightning.pytorch as pl


        def tf_log_convert(log):
            return {k.replace("_", "/"): v for k, v in log.items()}


        class ICON(pl.LightningModule):
            def training_step(self, batch, batch_idx):
                loss, acc = self.net(batch)
                metrics_log = {"train_loss": loss.item(), "train_acc": acc.item()}
                tf_log = tf_log_convert(metrics_log)
                metrics_return = {k: torch.tensor(v) for k, v in metrics_log.items()}
                metrics_return.update({"loss": loss, "log": tf_log})
                return metrics_return

            def validation_step(self, batch, batch_idx):
                loss, acc = self.net(batch)
                shown = {"val_acc": acc.item()}
                print(shown)
                return loss
        """,
}


def test_values_a_lightning_step_hands_back_through_converters_and_comprehensions(tmp_path):
    """A container returned to the framework for logging is host-needed (rules.md "A step body"),
    also when the step returns what a converter or a comprehension made of it. A dict only printed
    is not handed back."""
    write(tmp_path, ICON_LIKE)
    assert findings(tmp_path, "apps/icon.py") == [("TPL102", 20, SYNC)]


MESH_METRICS = {
    "pyproject.toml": "",
    "train.py": """
        import numpy as np
        import torch
        import trimesh


        def chamfer(src_mesh, tgt_mesh, n):
            pts, _ = trimesh.sample.sample_surface_even(tgt_mesh, n)
            _, dist, _ = trimesh.proximity.closest_point(src_mesh, pts)
            dist[np.isnan(dist)] = 0
            return dist.mean().item() * 100


        def train(model, loader, opt, src_mesh, tgt_mesh):
            for batch in loader:
                loss = model(batch.cuda())
                loss.backward()
                opt.step()
                print(chamfer(src_mesh, tgt_mesh, 1000), loss.item())
        """,
}


def test_values_a_host_array_library_computes_are_on_the_host(tmp_path):
    """``trimesh`` (like numpy, scipy, OpenCV, scikit-learn) computes on the host and returns numpy:
    ``.item()`` of its distances waits for no device; the loss's ``.item()`` does."""
    write(tmp_path, MESH_METRICS)
    assert findings(tmp_path, "train.py") == [("TPL102", 18, SYNC)]


ONE_PASS = {
    "pyproject.toml": "",
    "checks.py": """
        import torch


        def check_batch_mixing(model, loader):
            for batch in loader:
                x = batch.cuda().requires_grad_()
                model(x)[0].abs().sum().backward()
                if x.grad[1:].abs().sum().item() > 0:
                    raise RuntimeError("the model mixes data across the batch")
                break


        def train(model, loader, opt):
            for batch in loader:
                loss = model(batch.cuda()).sum()
                loss.backward()
                opt.step()
                if loss.item() > 1e3:
                    raise RuntimeError("diverged")
        """,
}


def test_a_loop_whose_first_pass_ends_in_break_runs_once(tmp_path):
    """PARE's ``CheckBatchGradient``: a loop over the loader whose body ends in ``break`` looks at
    one batch, once; the same loop without it runs every step."""
    write(tmp_path, ONE_PASS)
    assert findings(tmp_path, "checks.py") == [("TPL102", 18, SYNC)]
