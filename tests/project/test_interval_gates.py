"""Gates (analysis/interval_gates.py): early returns under interval tests in every branch of an
``if``/``else`` make what follows run only at the interval (rules.md "An interval": an early
``return``/``continue`` under a test on the step counter; what follows it is the interval). Seen in
sd-scripts' ``sample_images_common`` (holdout2 verdicts). Whole diagnostics, flagged and silent twins,
in the function itself (the walk) and in a callee in another file (the project index)."""

from __future__ import annotations

from pathlib import Path

from _diagnostics import EMPTY_CACHE, SYNC_TEMPLATE as SYNC
from _project_files import findings_without_col, write


def findings(root: Path, name: str):
    return findings_without_col(root, name, codes=["TPL102", "TPL103"])


TRAIN = """
    import torch
    from sampling import sample_images


    def train(model, loader, optimizer, args):
        for step, (x, y) in enumerate(loader):
            loss = model(x.cuda()).sum()
            loss.backward()
            optimizer.step()
            sample_images(step, None, args, model, x)
    """

# {else_branch}: the else branch's body; with an interval exit every path past the if/else is gated
SAMPLING = """
    import torch


    def sample_images(steps, epoch, args, model, x):
        if steps == 0:
            if not args.sample_at_first:
                return
        else:
            if args.sample_every_n_steps is None:
                return
    {else_branch}
        out = model(x)
        print(out.mean().item())
        draw(out)


    def draw(out):
        torch.cuda.empty_cache()
        return out.cpu()
    """

GATED = """
            if args.sample_every_n_epochs is not None:
                if epoch is None or epoch % args.sample_every_n_epochs != 0:
                    return
            else:
                if steps % args.sample_every_n_steps != 0 or epoch is not None:
                    return
"""

# a setting, not an interval: with ``args.fast`` off nothing gates the steps
FLAG = """
            if args.fast:
                if steps % args.sample_every_n_steps != 0:
                    return
            else:
                print("sampling every step")
"""


def _project(root: Path, else_branch: str) -> None:
    write(root, {"pyproject.toml": "", "train.py": TRAIN,
                 "sampling.py": SAMPLING.replace("    {else_branch}", else_branch.strip("\n"))})


def test_early_returns_under_intervals_in_every_branch_gate_what_follows(tmp_path):
    _project(tmp_path, GATED)
    assert findings(tmp_path, "sampling.py") == []


def test_a_branch_that_lets_every_step_through_is_no_gate(tmp_path):
    _project(tmp_path, FLAG)
    chain = " (called every step from train.py:10)"
    assert findings(tmp_path, "sampling.py") == [
        ("TPL102", 17, SYNC.format(what="`.item()`") + chain),
        ("TPL103", 22, EMPTY_CACHE + " (called every step from train.py:10 via sample_images)"),
        ("TPL102", 23, SYNC.format(what="`.cpu()`") + " (called every step from train.py:10 via sample_images)"),
    ]


# R150: an if/else gate whose interval branch runs the backward is the step, not an interval
PACKING = """
    import torch
    from metrics import record


    def train(model, optimizer, dataset, N):
        items = []
        for i, data in enumerate(dataset):
            items.append(data)
            if i % 8 == 0 or i == N:
    {gated}
                items = []
            else:
                continue
            record(loss)
    """
METRICS = """
    import torch


    def record(loss):
        print(loss.item())
    """


def _packing(root: Path, gated: str) -> None:
    write(root, {"pyproject.toml": "", "train.py": PACKING.replace("    {gated}", gated.strip("\\n")),
                 "metrics.py": METRICS})


def test_a_helper_called_after_a_gate_that_runs_the_backward_runs_every_step(tmp_path):
    """transformerCPI's form (holdout167) with the per-step work in a helper of another module:
    the index reads the call after the if/else as a call of every step (the walk's twin is in
    tests/test_residual_forms_31.py)."""
    _packing(tmp_path, """
                loss = model(torch.stack(items))
                loss.backward()
                optimizer.step()
""")
    assert findings(tmp_path, "metrics.py") == [
        ("TPL102", 5, SYNC.format(what="`.item()`") + " (called every step from train.py:18)")]


def test_a_helper_called_after_a_gate_that_only_evaluates_runs_at_the_interval(tmp_path):
    _packing(tmp_path, """
                loss = model(torch.stack(items)).detach()
""")
    assert findings(tmp_path, "metrics.py") == []
