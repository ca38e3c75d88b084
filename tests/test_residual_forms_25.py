"""Forms read in the twenty-fifth session (2026-11-28): each with its twin, whole diagnostics."""

from _diagnostics import ITEM_SYNC, SYNC_TEMPLATE, found

# -- R74: a loop that steps each of several optimizers is the body's own update, not a nested step loop

ACCUMULATING = """\
import torch

for step in range(args.num_iterations):
    for i in range(1, accumulation + 1):
        x, y = train_loader.next_batch()
        _, loss = model(x, y)
        train_loss = loss.detach()
        loss.backward()
    {update}
    model.zero_grad(set_to_none=True)
    if master_process:
        print(f"step:{step} train_loss:{train_loss.item():.4f}")
"""
STEP_EACH = """for opt, sched in zip(optimizers, schedulers):
        opt.step()
        sched.step()"""


def _printed(source):
    """The whole finding of the ``.item()`` in the ``print``, on whatever line it is."""
    line = next(n for n, text in enumerate(source.splitlines(), 1) if "print(" in text)
    return [("TPL102", line, 40, ITEM_SYNC)]


def test_stepping_each_optimizer_after_the_accumulation_loop_is_the_outer_loops_own_step():
    """modded-nanogpt's records (holdout125): the accumulation loop runs the backwards, then ``for opt,
    sched in zip(optimizers, schedulers): opt.step()`` steps each optimizer once: the outer loop runs
    one step each time round (it is no epoch loop), and a sync under a flag there runs every step."""
    for update in (STEP_EACH, "optimizer.step()",  # (one optimizer in the body itself: read so before)
                   "for opt in optimizers:\n        scaler.step(opt)\n    scaler.update()"):
        source = ACCUMULATING.replace("{update}", update)
        assert found(source) == _printed(source)


def test_without_the_optimizer_loop_the_outer_loop_is_an_epoch_loop():
    """Its own body runs no step (the nested accumulation loop steps the optimizer itself): an epoch
    loop, whose sync under a flag runs once per epoch (rules.md "In a loop")."""
    source = ACCUMULATING.replace("        loss.backward()\n", "        loss.backward()\n        optimizer.step()\n")
    assert found(source.replace("{update}", "pass")) == []


def test_a_loop_over_optimizers_that_does_more_than_step_them_stays_a_nested_loop():
    """``for opt in optimizers: loss = model(x); loss.backward(); opt.step()``: steps of their own
    (one per optimizer, each with a model call and a backward), so the loop around is epoch-level."""
    update = ("for opt in optimizers:\n        loss = model(x, y)\n        loss.backward()\n        opt.step()")
    source = ACCUMULATING.replace("        loss.backward()\n", "").replace("{update}", update)
    assert found(source) == []


# -- R75: a host-only script is one that names no device: ``set_xlabel`` names none -------------------

from torchperf_lint.analysis.host_only import names_no_device  # noqa: E402


def test_a_plot_label_is_no_xla_device():
    """sweetice's actor-critic scripts (holdout126) plot with ``ax.set_xlabel('Episode')``: the
    word ``xla`` inside ``xlabel`` named a device, and the CPU-only scripts lost their host-only
    reading. A device named XLA (``torch_xla``, ``xm.xla_device()``, ``"xla"``) still counts."""
    assert names_no_device(["ax.set_xlabel('Episode')", "plt.xlabel('step')", "ax.set_xlim(0, 1)"])
    for line in ("import torch_xla.core.xla_model as xm", "device = xm.xla_device()", 'x.to("xla")',
                 "if args.XLA:", "import torch_xla"):
        assert not names_no_device([line]), line


# -- R76: a loop over a loader whose nested loop trains over a loader of its own is epoch-level -------

from _diagnostics import CPU_SYNC, EMPTY_CACHE  # noqa: E402

ROLLOUTS = """\
import torch
from torch.utils.data import DataLoader


def train(model, optimizer, prompt_loader, objective, device):
    for k, prompt_batch in enumerate(prompt_loader):
        with torch.no_grad():
            returns = model(prompt_batch.to(device))
        buffer = [returns.cpu()]
        torch.cuda.empty_cache()
        print(f"returns of step {k}: {returns.sum():.4f}")
        experience_sampler = DataLoader(buffer, batch_size=4)
        for step_epoch in range(2):
            for exp in {inner}:
                loss, kl = objective(model(exp.to(device)))
                if not loss.isfinite():
                    continue
                loss.backward()
                optimizer.step()
"""
NOT_FINITE = ("TPL102", 16, 19, "testing a tensor's truth waits for the device in every iteration; keep values on "
              "the device (`total += loss.detach()`) and sync once after the loop or every N steps "
              "(runtime_guard: sync report)")


def test_a_rollout_batch_then_epochs_of_updates_over_the_experience_is_epoch_level():
    """tiny-grpo (holdout126): each prompt batch makes rollouts with autograd off, then epochs of
    updates over a loader of the experience: the outer loop's cache free and its print run once per
    many steps (R76); the inner loop's truth test of the loss runs every step (R77: ``.isfinite()``
    is a tensor's method, whatever returned the loss)."""
    assert found(ROLLOUTS.replace("{inner}", "experience_sampler"), codes=("TPL102", "TPL103")) == [NOT_FINITE]


def test_a_loop_over_a_loader_whose_nested_loop_trains_on_held_data_is_no_epoch():
    """The nested loop iterates no loader (``range`` over chunks of the batch): each outer batch is
    the step's data, and what the outer body does runs every step, as before."""
    source = ROLLOUTS.replace("{inner}", "buffer")
    assert found(source, codes=("TPL102", "TPL103")) == [
        ("TPL102", 9, 18, CPU_SYNC),
        ("TPL103", 10, 8, EMPTY_CACHE),
        ("TPL102", 11, 8, NOT_FINITE[3].replace("testing a tensor's truth", "printing a tensor")),
        NOT_FINITE]


def test_a_finiteness_test_of_host_values_stays_silent():
    """``np.isfinite`` of a numpy array and ``math.isfinite`` of a Python float are host work: only a
    tensor's own ``.isfinite()`` is read as a tensor (R77)."""
    for test in ("if not np.isfinite(np.asarray(kl)).all():", "if not math.isfinite(step_epoch * 0.5):"):
        source = "import math\nimport numpy as np\n" + ROLLOUTS.replace("{inner}", "experience_sampler").replace(
            "if not loss.isfinite():", test)
        assert found(source, codes=("TPL102",)) == [], test


# -- R78: a timer object's reading after ``synchronize()`` is a timing read (R6) -------------------

TIMED = """\
import torch


def compute_time_train(model, inputs, loss_fun, timer, timers):
    for cur_iter in range(30):
        timer.tic()
        loss = loss_fun(model(inputs))
        loss.backward()
        torch.cuda.synchronize()
        {read}
"""


def test_a_timer_objects_reading_after_synchronize_is_host_needed():
    """pycls's ``benchmark.py`` (holdout123): ``torch.cuda.synchronize()`` then ``fw_timer.toc()``:
    the wait is what makes the timer's reading mean something, as R6's ``time.perf_counter()``."""
    for read in ("timer.toc()", "self_timer = timer.toc()", 'timers("backward").stop()', "bw_timer.elapsed()"):
        assert found(TIMED.replace("{read}", read)) == [], read


def test_synchronize_before_other_methods_of_a_timer_or_a_non_timer_stays_flagged():
    synced = [("TPL102", 9, 8, SYNC_TEMPLATE.format(what="`torch.cuda.synchronize()`"))]
    for read in ("pass", "timer.reset()", "loader.stop()", "print(timer)"):
        assert found(TIMED.replace("{read}", read)) == synced, read


# -- R79: a factory's name rebound to ops that keep it fresh, then moved ------------------------------

MASKED = """\
import torch


def forward(args, h):
    mask = (1 - torch.eye(args.n_agents))
    {rebind}
    if args.cuda:
        mask = mask.cuda()
    return h * mask.unsqueeze(0)
"""
EYE_MOVED = ("TPL101", 5, 16, "tensor is created on the CPU and then copied to the device; pass `device=` to "
             "`torch.eye(...)` to create it there (runtime_guard: device-native creation)")


def test_a_factory_rebound_to_its_own_views_and_then_moved_is_created_on_the_host():
    """MARL-Algorithms' CommNet and QTRAN (holdout126): ``mask = (1 - torch.eye(n))``, ``mask =
    mask.view(-1, 1).repeat(1, h).view(n, -1)``, then ``mask = mask.cuda()`` under the CUDA flag,
    every forward: the rebinding is the same fresh host tensor, moved whole (no fix: three statements)."""
    for rebind in ("mask = mask.view(-1, 1).repeat(1, args.rnn_hidden_dim).view(args.n_agents, -1)",
                   "mask = mask.float()", "mask = mask.unsqueeze(0)\n    mask = mask.expand(4, -1, -1)"):
        assert found(MASKED.replace("{rebind}", rebind), codes=("TPL101",)) == [EYE_MOVED], rebind


def test_a_rebinding_that_works_on_the_host_tensor_stays_silent():
    """Written to or read otherwise before the move, or rebound to work that is not a view or cast of
    it (a product with another tensor, a read of its shape beside the view): the host tensor is used
    where it is, and creating it on the device would move that work too."""
    for rebind in ("mask[0, 0] = 2\n    mask = mask.view(-1)", "mask = mask @ h.t()",
                   "mask = mask.view(mask.shape[0], -1)", "other = mask.view(-1)"):
        assert found(MASKED.replace("{rebind}", rebind), codes=("TPL101",)) == [], rebind




# -- R82: a number that repeats a list (``[pad] * n``) is a count the host needs ---------------------

PACKED = """\
import torch


def train(model, loader, optimizer, pad_id, device):
    for rows in loader:
        seq_lens = torch.tensor([len(ids) for ids in rows], device=device)
        max_len = seq_lens.max().item()
        input_ids = torch.tensor({padded}, device=device)
        loss = model(input_ids).mean()
        loss.backward()
        optimizer.step()
"""


def test_a_length_that_pads_lists_by_repetition_is_host_needed():
    """minimind's agent RL loop (holdout125): ``max_len = seq_lens.max().item()`` pads each packed
    row with ``[pad_id] * (max_len - len(ids))``: only a Python int repeats a list."""
    for padded in ("[ids + [pad_id] * (max_len - len(ids)) for ids in rows]",
                   "[ids + (max_len - len(ids)) * [pad_id] for ids in rows]"):
        assert found(PACKED.replace("{padded}", padded)) == [], padded


def test_a_length_multiplying_numbers_stays_flagged():
    assert found(PACKED.replace("{padded}", "[[i * max_len for i in ids] for ids in rows]")) == [
        ("TPL102", 7, 18, ITEM_SYNC)]
