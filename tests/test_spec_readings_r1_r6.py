"""The lead's spec readings R1-R6 of 2026-11-26 (docs/precision.md, "Spec readings R1-R6 and
precision") and the plain-script readings that came with them: whole diagnostics (line, column,
message, fix and its applicability), each form with its flagged twin and its silent twin."""

from __future__ import annotations

from _diagnostics import SYNC_TEMPLATE as SYNC, rule_diagnostics as diagnostics

ITEM = SYNC.format(what="`.item()`")
CPU = SYNC.format(what="`.cpu()`")
NUMPY = SYNC.format(what="`.numpy()`")
SYNCHRONIZE = SYNC.format(what="`torch.cuda.synchronize()`")


# ---- a bare .numpy() reads a host tensor ---------------------------------------------------------
def test_tpl102_a_bare_numpy_reads_a_tensor_that_is_on_the_host():
    """torch raises on ``.numpy()`` of a device tensor ("can't convert cuda:0 device type tensor to
    numpy"): what a bare ``.numpy()`` reads is on the host, and nothing waits (YOLOX's boxes after
    a project helper; the copy is the ``.cpu()`` before it, reported by itself)."""
    source = """
        import torch
        def evaluate(model, loader, to_xywh, results):
            for imgs, _ in loader:
                out = model(imgs.cuda())
                boxes = to_xywh(out[:, :4])
                results.append(boxes.numpy())
                results.append(boxes.detach().numpy())
        """
    assert diagnostics(source, "TPL102") == []


def test_tpl102_numpy_with_force_copies_from_the_device():
    """Flagged twins: ``.numpy(force=True)`` copies a device tensor to the host (a sync), and the
    ``.cpu()`` in ``.cpu().numpy()`` is the copy; a bare ``.numpy()`` (or ``force=flag``) of a
    value the code put on the device stays reported (the catalog lists ``.numpy()``); the silent
    twin is the test above (a value of unknown origin). The loop steps an optimizer: in a loop
    that trains nothing every copy is an evaluation result (R8)."""
    source = """
        import torch
        def evaluate(model, loader, flag, results, optimizer):
            for imgs, _ in loader:
                out = model(imgs.cuda())
                results.append(out.numpy(force=True))
                results.append(out.cpu().numpy())
                results.append(out.numpy(force=flag))
                results.append(out.detach().numpy())
                optimizer.step()
        """
    assert diagnostics(source, "TPL102") == [
        (6, 23, NUMPY, None, None),
        (7, 23, CPU, None, None),
        (8, 23, NUMPY, None, None),
        (9, 23, NUMPY, None, None),
    ]


# ---- R1: epoch-level loops that evaluate, and sample generation beside the step loop ------------
def test_r1_an_epoch_body_that_evaluates_under_no_grad_runs_once_per_epoch():
    """R1: the epoch loop's own model calls run under ``torch.no_grad()`` (or on a model the body
    put in eval mode, PyTorch-GAN's clustergan, and torch loss modules measuring its outputs):
    evaluation, once per epoch; the step loop is the nested one. The sample loop beside the step
    loop calls the generator under ``no_grad`` and iterates no loader: sample generation, not a
    step loop."""
    source = """
        import torch
        mse = torch.nn.MSELoss()
        def train(generator, encoder, loader, opt, z, test_x, epochs, log):
            for epoch in range(epochs):
                for x, y in loader:
                    loss = generator(x.cuda()).mean()
                    loss.backward()
                    opt.step()
                with torch.no_grad():
                    fake = generator(z)
                log(fake.mean().item())
                generator.eval()
                encoder.eval()
                rec = generator(encoder(test_x))
                log(mse(rec, test_x).item())
                samples = []
                with torch.no_grad():
                    for c in range(10):
                        samples.append(generator(z[c]).cpu())
                for c in range(10):
                    with torch.inference_mode():
                        img = generator(z[c])
                    log(img.max().item())
                log(loss.item())
        """
    assert diagnostics(source, "TPL102") == []


def test_r1_model_calls_with_autograd_on_keep_the_epoch_loop_a_step_loop():
    """Flagged twins: the epoch body calls the model with autograd on and no eval mode (a step by
    the letter), and a loop beside the step loop that also steps the optimizer, or iterates a
    loader, is no sample generation."""
    source = """
        import torch
        mse = torch.nn.MSELoss()
        def train(generator, loader, val_loader, opt, z, epochs, log):
            for epoch in range(epochs):
                for x, y in loader:
                    loss = generator(x.cuda()).mean()
                    loss.backward()
                    opt.step()
                fake = generator(z)
                log(mse(fake, z).item())
            for epoch in range(epochs):
                for x, y in loader:
                    generator(x.cuda()).mean().backward()
                    opt.step()
                for c in range(10):
                    with torch.no_grad():
                        img = generator(z[c])
                    log(img.max().item())
                    opt.step()
                with torch.no_grad():
                    for x in val_loader:
                        log(generator(x.cuda()).max().item())
        """
    assert diagnostics(source, "TPL102") == [
        (11, 12, ITEM, None, None),
        (19, 16, ITEM, None, None),
        (23, 20, ITEM, None, None),
    ]


# ---- R3: host-needed wins -------------------------------------------------------------------------
def test_r3_one_host_needed_use_makes_the_sync_host_needed():
    """R3: a value with one use the host must have (a size, a slice bound, ``split`` sections)
    is not flagged, whatever its other uses (StyleTTS2's ``slmadv``: the length is a size of
    ``torch.arange`` and a slice bound, and once arithmetic with a tensor; a bound also logged;
    DeepSpeed-Chat's divergence index, a slice bound after an ``if`` that rebinds it on one path)."""
    source = """
        import torch
        def train(model, loader, optimizer, logger):
            for x, lengths in loader:
                out = model(x.cuda())
                out.sum().backward()
                optimizer.step()
                l = int(lengths.cuda().min().item())
                idx = torch.arange(0, l)
                window = out[:, :l]
                scale = out.mean() * l
                start, end = out[0].long().item(), out[1].long().item()
                part = x[start:end]
                logger.log(end)
                sizes = lengths.cuda().tolist()
                chunks = out.split(sizes)
                logger.log(sizes)
                ind = (out[0] != out[1]).nonzero().squeeze(-1)
                if len(ind) > 0:
                    ind = ind[0]
                else:
                    ind = 0                      # a new value on one path only
                x[:ind] = 0                      # the slice bound still reads the first
        """
    assert diagnostics(source, "TPL102") == []


def test_r3_a_value_no_use_needs_on_the_host_still_syncs():
    """Flagged twins: the same values only logged, multiplied into a tensor or kept; a size
    needed only on another branch (a use the value cannot reach) does not count."""
    source = """
        import torch
        def train(model, loader, optimizer, logger, cond):
            for x, lengths in loader:
                out = model(x.cuda())
                out.sum().backward()
                optimizer.step()
                l = int(lengths.cuda().min().item())
                scale = out.mean() * l
                start, end = out[0].long().item(), out[1].long().item()
                logger.log(end - start)
                if cond:
                    sizes = lengths.cuda().tolist()
                    logger.log(sizes)
                else:
                    chunks = out.split(sizes)
        """
    assert diagnostics(source, "TPL102") == [
        (8, 16, ITEM, None, None),
        (10, 21, ITEM, None, None),
        (10, 43, ITEM, None, None),
        (13, 20, SYNC.format(what="`.tolist()`"), None, None),
    ]


# ---- R6: synchronize() bracketing a timer read is host-needed anywhere -----------------------------
def test_r6_a_synchronize_before_a_timer_read_is_host_needed_in_a_training_loop():
    """R6: ``torch.cuda.synchronize()`` followed, before any other device work, by a timer read
    is what the user asked for (llm.c's per-step timing), also with host-only statements between
    (a counter, a log line) and after the ``if`` it ends."""
    source = """
        import logging
        import time
        import torch
        def train(model, loader, optimizer, cuda):
            seen = 0
            for step, (x, y) in enumerate(loader):
                t0 = time.perf_counter()
                loss = model(x.cuda()).sum()
                loss.backward()
                optimizer.step()
                torch.cuda.synchronize()
                seen += x.size(0)
                logging.info("step %d done", step)
                t1 = time.perf_counter()
                if cuda:
                    torch.cuda.synchronize(); n = len(x)
                dt = time.time() - t0
        """
    assert diagnostics(source, "TPL102") == []


def test_r6_a_synchronize_with_device_work_before_the_timer_read_still_syncs():
    """Flagged twins: device work (a model call, an optimizer step) stands between the
    synchronize and the timer read, or no timer read follows at all."""
    source = """
        import time
        import torch
        def train(model, loader, optimizer):
            for step, (x, y) in enumerate(loader):
                t0 = time.perf_counter()
                loss = model(x.cuda()).sum()
                loss.backward()
                torch.cuda.synchronize()
                optimizer.step()
                t1 = time.perf_counter()
                torch.cuda.synchronize()
                print("done")
        """
    assert diagnostics(source, "TPL102") == [
        (9, 8, SYNCHRONIZE, None, None),
        (12, 8, SYNCHRONIZE, None, None),
    ]


# ---- R2: a backward function that every visible caller runs once -----------------------------------
R2_HELPER = """
    import torch
    import torch.nn.functional as F

    def visualize_gradients(net, imgs, labels):
        net.zero_grad()
        loss = F.cross_entropy(net(imgs), labels)
        loss.backward()
        return {n: p.grad.view(-1).cpu().numpy() for n, p in net.named_parameters()}

    class Check:
        def __init__(self, net, imgs, labels):
            self.grads = self.grads_of(net, imgs, labels)

        def grads_of(self, net, imgs, labels):
            net(imgs).sum().backward()
            return [p.grad.norm().item() for p in net.parameters()]

    def inspect(net, imgs, labels):
        return visualize_gradients(net, imgs, labels)
    """


def test_r2_a_backward_function_every_visible_caller_runs_once_is_no_step_body():
    """R2: the project shows the callers of the functions with their own ``.backward()`` and each
    runs it once: a module-level call outside any loop (the UvA tutorial's
    ``visualize_gradients(model)``), a call in a run-once hook (``__init__``), a call in a
    function itself only called that way."""
    source = R2_HELPER + """
    model = torch.nn.Linear(4, 2).cuda()
    imgs, labels = torch.randn(8, 4).cuda(), torch.zeros(8).long().cuda()
    visualize_gradients(model, imgs, labels)
    check = Check(model, imgs, labels)
    if __name__ == "__main__":
        inspect(model, imgs, labels)
    """
    assert diagnostics(source, "TPL102") == []


def test_r2_a_call_in_a_loop_or_no_visible_caller_keeps_the_step_body():
    """Flagged twins: a caller runs it in a loop (over networks, or in a comprehension), or the
    only caller is a function nobody visibly calls (``inspect``), or a method called from a method
    that is no run-once hook and that nobody visibly calls: the step-body assumption stays."""
    in_a_loop = R2_HELPER + """
    for width in (2, 4):
        model = torch.nn.Linear(4, width).cuda()
        visualize_gradients(model, torch.randn(8, 4).cuda(), torch.zeros(8).long().cuda())
    grads = [visualize_gradients(m, x, y) for m, x, y in []]
    """
    assert diagnostics(in_a_loop, "TPL102") == [(9, 15, CPU, None, None)]
    in_a_comprehension = R2_HELPER + """
    nets = [torch.nn.Linear(4, 2).cuda()]
    grads = [visualize_gradients(m, torch.randn(8, 4).cuda(), None) for m in nets]
    """
    assert diagnostics(in_a_comprehension, "TPL102") == [(9, 15, CPU, None, None)]
    no_caller = R2_HELPER
    assert diagnostics(no_caller, "TPL102") == [(9, 15, CPU, None, None)]
    not_a_hook = R2_HELPER.replace("def __init__(self, net, imgs, labels):", "def refresh(self, net, imgs, labels):")
    assert diagnostics(not_a_hook + """
    inspect(torch.nn.Linear(4, 2).cuda(), None, None)
    """, "TPL102") == [(17, 16, ITEM, None, None)]


# ---- R4 and R5: how the code already reads ---------------------------------------------------------
# R4 (``.to(<name>)`` moves to a tensor's device only where value flow shows a tensor) has its
# twins in tests/test_tpl101_move_to_a_tensor.py (``test_a_factory_moved_to_a_tensor_...`` and
# ``test_a_factory_moved_to_what_may_be_a_device_or_a_dtype_is_silent``).
R5_TRAINER = """
    import torch
    from trl import DPOTrainer

    class MyDPO(DPOTrainer):
        def concatenated_forward(self, model, batch):
            logits = model(batch["input_ids"].cuda()).logits
            self.store.append(logits.mean().item())
            return logits

        def get_batch_loss_metrics(self, model, batch, train_eval="train"):
            logits = self.concatenated_forward(model, batch)
            self.store.append(logits.max().item())
            return logits.mean(), {}
    """


def test_r5_overrides_only_trl_calls_are_no_step_bodies():
    """R5: ``get_batch_loss_metrics`` and ``concatenated_forward`` are called by trl's installed
    ``compute_loss``, which the project cannot see into; rules.md's list of step methods is closed."""
    assert diagnostics(R5_TRAINER, "TPL102") == []


def test_r5_an_override_a_project_step_method_calls_is_a_step_body():
    """Flagged twin: the project's own ``compute_loss`` (a listed step method) calls them."""
    source = R5_TRAINER + """
        def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
            loss, metrics = self.get_batch_loss_metrics(model, inputs)
            return loss
    """
    chain = " (called every step from <string>:17 via {via})"
    assert diagnostics(source, "TPL102") == [
        (8, 26, ITEM + chain.format(via="compute_loss → get_batch_loss_metrics"), None, None),
        (13, 26, ITEM + chain.format(via="compute_loss"), None, None),
    ]


def test_r1_a_no_grad_loop_over_a_wrapped_loader_is_no_sample_generation():
    """Flagged twin: the loop beside the step loop iterates a loader through a name bound to
    ``tqdm(val_loader)``: a validation loop, not sample generation."""
    source = """
        import torch
        from tqdm import tqdm
        def train(model, loader, val_loader, optimizer, criterion, epochs):
            for epoch in range(epochs):
                for x, y in loader:
                    loss = criterion(model(x.cuda()), y.cuda())
                    loss.backward()
                    optimizer.step()
                model.eval()
                with torch.no_grad():
                    val_bar = tqdm(val_loader)
                    for x, y in val_bar:
                        val_loss = criterion(model(x.cuda()), y.cuda()).item()
        """
    assert diagnostics(source, "TPL102") == [(14, 27, ITEM, None, None)]


def test_r3_a_nan_stop_in_a_loop_that_hands_the_optimizer_to_a_loss_scaler_still_syncs():
    """Flagged twin of R3's loop-stop use: the DeiT/MAE training loop stops on a NaN loss and runs
    its update through ``loss_scaler(loss, optimizer, ...)`` (backward and step in another
    module): a training loop, where a NaN check every N steps would do (rules.md). A decoding
    loop that stops on the token is host-needed (the silent twin)."""
    source = """
        import math
        import sys
        import torch
        def train_one_epoch(model, loader, optimizer, loss_scaler, metric_logger):
            for samples, _ in loader:
                loss = model(samples.cuda())
                loss_value = loss.item()
                if not math.isfinite(loss_value):
                    sys.exit(1)
                loss_scaler(loss, optimizer, parameters=model.parameters())
                metric_logger.update(loss=loss_value)

        def decode(model, ids, eos_id, out):
            for _ in range(32):
                token = model(ids)[:, -1].argmax(-1)
                value = token.item()
                if value == eos_id:
                    break
                out.append(value)
        """
    assert diagnostics(source, "TPL102") == [(8, 21, ITEM, None, None)]


def test_r1_an_inference_loop_with_a_warm_up_loop_is_no_epoch_loop():
    """Flagged twin: the loop over images calls the model under ``no_grad`` and its only nested
    loop warms the model up (no loader, no update): the outer loop is the per-image step loop,
    not an epoch (yolov7's ``detect.py``)."""
    source = """
        import torch
        def detect(model, dataset, log):
            for path, img in dataset:
                img = torch.from_numpy(img).cuda()
                if img.shape[0] > 1:
                    for i in range(3):
                        model(img)
                with torch.no_grad():
                    pred = model(img)
                log(pred.max().item())
        """
    assert diagnostics(source, "TPL102") == [(11, 12, ITEM, None, None)]


# ---- actions handed back as they are to a caller that steps an environment -------------------------
AGENT = """
    import torch
    import lightning.pytorch as pl

    class Agent:
        def __init__(self, net):
            self.net = net

        def __call__(self, state, device):
            return self.random_action(state) if self.explore else self.get_action(state, device)

        def get_action(self, state, device):
            _, actions = torch.max(self.net(state.to(device)), dim=1)
            return actions.detach().cpu().numpy()

        def random_action(self, state):
            return [0]

    class DQN(pl.LightningModule):
        def __init__(self, net, env):
            super().__init__()
            self.agent = Agent(net)
            self.env = env

        def training_step(self, batch, batch_idx):
            state = self.env.reset()
            action = self.agent(state, self.device)
            {step}
    """


def test_an_action_returned_as_it_is_through_a_caller_reaches_the_environment():
    """rules.md "A step body": a value handed to an environment's ``env.step(...)`` is host-needed.
    ``Agent.__call__`` hands ``get_action``'s numpy actions back as they are (also through a
    conditional expression) to ``training_step``, which steps the environment with them (lightning-
    bolts' RL agents); a method of the value on the way (``.cpu().numpy()``) keeps it the same."""
    source = AGENT.replace("{step}", "self.env.step(action[0])")
    assert diagnostics(source, "TPL102") == []


def test_an_action_bound_to_a_name_and_returned_reaches_the_environment():
    """R47.8: ``chosen = self.get_action(state, device); return chosen`` hands the numpy action back
    as ``return self.get_action(state, device)`` does; the step steps the environment with it."""
    bound = AGENT.replace(
        "return self.random_action(state) if self.explore else self.get_action(state, device)",
        "chosen = self.get_action(state, device)\n            return chosen")
    assert diagnostics(bound.replace("{step}", "self.env.step(action[0])"), "TPL102") == []
    chain = " (called every step from <string>:28 via training_step → __call__)"
    assert diagnostics(bound.replace("{step}", "self.actions.append(action)"), "TPL102") == [
        (15, 15, CPU + chain, None, None)]


def test_an_action_kept_or_not_handed_back_as_it_is_still_syncs():
    """Flagged twins: the step method keeps the action (no environment), or the caller does not
    hand the callee's value back as it is. (A ``training_step``: Lightning runs ``test_step`` with
    autograd off, training nothing, where R7 makes a kept copy of an action a result.)"""
    chain = " (called every step from <string>:{line} via {via})"
    kept = AGENT.replace("{step}", "self.actions.append(action)")
    assert diagnostics(kept, "TPL102") == [
        (14, 15, CPU + chain.format(line=27, via="training_step → __call__"), None, None)]
    not_as_it_is = AGENT.replace("{step}", "self.env.step(action[0])").replace(
        "return self.random_action(state) if self.explore else self.get_action(state, device)",
        "self.last_action = self.get_action(state, device)\n            return self.random_action(state)")
    # (``chosen = self.get_action(...); return chosen`` was this twin until R47.8: a name bound to the
    # call and returned hands its value back as it is)
    assert diagnostics(not_as_it_is, "TPL102") == [
        (15, 15, CPU + chain.format(line=28, via="training_step → __call__"), None, None)]


# ---- R3: scikit-learn's metrics take host arrays ---------------------------------------------------
def test_r3_values_handed_to_scikit_learn_are_host_needed():
    """R3: ``accuracy_score`` converts its arguments with numpy, so the copies it reads are values
    the host must have (BertGCN's Ignite step); the same copy only logged stays flagged."""
    source = """
        import torch
        from sklearn.metrics import accuracy_score
        import sklearn.metrics as skm
        def train_step(engine, batch, model, optimizer, log):
            x, y = [t.cuda() for t in batch]
            out = model(x)
            loss = out.sum()
            loss.backward()
            optimizer.step()
            y_true = y.detach().cpu()
            y_pred = out.argmax(1).detach().cpu()
            acc = accuracy_score(y_true, y_pred)
            f1 = skm.f1_score(y.cpu(), out.argmax(1).cpu())
            log(out.argmax(1).cpu())
            return acc, f1
        """
    assert diagnostics(source, "TPL102") == [(15, 8, CPU, None, None)]


# ---- a module's function is not a tensor's method ----------------------------------------------
def test_tpl102_numpy_nonzero_is_a_module_function_not_a_tensor_method():
    """``np.nonzero(row)`` names numpy's function (tevatron's SPLADE encoder): nothing is read
    from a device; the tensor method in the same loop stays flagged."""
    source = """
        import torch
        import numpy as np
        def encode(model, loader, out):
            for batch in loader:
                reps = model(batch.cuda())
                row = np.zeros(3)
                out.append(np.nonzero(row)[0])
                out.append(reps.nonzero())
        """
    assert diagnostics(source, "TPL102") == [(9, 19, SYNC.format(what="`.nonzero()`"), None, None)]


# ---- R7: the results of inference that the host keeps ----------------------------------------------
def test_r7_inference_results_the_host_keeps_are_not_flagged():
    """R7 (2026-11-26): in a loop that trains nothing, with autograd off, a ``.cpu()`` copy of a
    model's output that is stored (appended, written, put into a container) or that host code
    iterates is the result the run is for (tevatron's encoders and rerankers, fastMRI's
    per-volume reconstructions), like ``predict_step``'s outputs. Flagged twins: a metric's
    ``.item()``, the same copy kept in a loop that trains. R8 (the same day) leaves every copy of
    a loop that trains nothing silent, autograd on or off: the copy printed through a name
    (``total``) and ``evaluate``'s copy with autograd on are silent too."""
    source = """
        import torch
        import numpy as np
        def encode(model, loader, fout, n):
            encoded, recons, results = [], {}, {}
            with torch.no_grad():
                for ids, batch in loader:
                    out = model(batch.cuda())
                    encoded.append(out.cpu().detach().numpy())
                    recons.setdefault("a", []).append((1, out[0].float().cpu().numpy()))
                    results[ids[0]] = out.cpu()
                    scores = out.float().cpu().tolist()
                    for i, s in zip(ids, scores):
                        fout.write(f"{i} {s}\\n")
                    total = out.sum().cpu()
                    print(total)
                    n += out.sum().item()
            return np.concatenate(encoded), n
        def train(model, loader, optimizer, kept):
            for x in loader:
                out = model(x.cuda())
                out.sum().backward()
                optimizer.step()
                with torch.no_grad():
                    kept.append(out.cpu())
        def evaluate(model, loader, kept):
            for x in loader:
                kept.append(model(x.cuda()).cpu())
        """
    assert diagnostics(source, "TPL102") == [
        (17, 17, ITEM, None, None),
        (25, 24, CPU, None, None),
    ]
