"""Forms from the framework holdout2 set's verdicts (docs/precision_framework_verdicts_holdout2.tsv)
that rules.md already decides: whole diagnostics (line, column, message, fix and its
applicability), each form with its silent twin."""

from __future__ import annotations

from _diagnostics import EMPTY_CACHE, SYNC_TEMPLATE as SYNC, rule_diagnostics as diagnostics

ITEM = SYNC.format(what="`.item()`")




# ---- a setting-guarded .item(): a flag is not an interval --------------------------------------
def test_tpl102_a_number_bound_in_one_branch_does_not_hide_the_tensor_of_the_other_path():
    """``aux = 0`` under ``if not use_aux:`` (no else) leaves the model's tensor on the other path;
    under ``if use_aux:`` (a setting, on every step) ``aux.item()`` syncs every step. Also when the
    two bindings are the two branches of one ``if``/``else``."""
    source = """
        import torch
        def train(model, loader, optimizer, use_aux, logs):
            for x, y in loader:
                loss, aux = model(x.cuda())
                if not use_aux:
                    aux = 0
                (loss + aux).backward()
                optimizer.step()
                if use_aux:
                    logs["aux"] = aux.item()
                if use_aux:
                    other = model.aux
                else:
                    other = 0
                if use_aux:
                    logs["other"] = other.item()
        """
    assert diagnostics(source, "TPL102") == [(11, 26, ITEM, None, None), (17, 28, ITEM, None, None)]


def test_tpl102_numbers_on_every_path_stay_on_the_host():
    """Silent twin: every binding that can reach the ``.item()`` is a Python number or a CPU tensor
    (one made before the ``if`` in the same branch the read is in, or both branches of an
    ``if``/``else`` and nothing that reaches past them)."""
    source = """
        import torch
        def train(model, loader, optimizer, use_aux, logs):
            for x, y in loader:
                loss = model(x.cuda()).sum()
                loss.backward()
                optimizer.step()
                if use_aux:
                    aux = torch.zeros(1)
                else:
                    aux = torch.ones(1)
                logs["aux"] = aux.item()
                count = loss.detach()
                if use_aux:
                    count = torch.tensor(3.0)
                    logs["count"] = count.item()
        """
    assert diagnostics(source, "TPL102") == []


# ---- sizes and slice bounds reached through a few names ----------------------------------------
def test_tpl102_sizes_through_names_arithmetic_min_max_and_subscript_targets_are_host_needed():
    """``.item()``/``.nonzero()`` whose values end, through arithmetic, ``min``/``max``/``int``,
    an item (``ind[0]``) and other names, only in slice bounds (also of an assignment target),
    ``F.pad`` widths and tests of those sizes: sizes the host needs (spec: shapes and sizes)."""
    source = """
        import torch
        import torch.nn.functional as F
        def train(model, loader, optimizer, out, keep):
            for x, mask in loader:
                y = model(x.cuda())
                y.sum().backward()
                optimizer.step()
                mask = mask.cuda()
                total = mask.sum().item()
                for i in range(4):
                    slen = mask[i].sum().item()
                    plen = int(mask[i, :4].sum().item())
                    start = max(0, slen - plen)
                    n = min(keep, total - start)
                    if n > 0:
                        out[i, :n] = y[i, start : start + n]
                    row = F.pad(y[i, :slen], (0, keep - n))
                    ind = (mask[i] != 0).nonzero().squeeze(-1)
                    if len(ind) > 0:
                        ind = ind[0]
                    out[i][:ind] = 0
        """
    assert diagnostics(source, "TPL102") == []


def test_tpl102_a_size_that_also_reaches_a_log_needs_the_host_and_an_index_still_syncs():
    """Twin: the same values, but one name derived from them is also logged or kept as a Python
    number for a report: the slice bound still needs the host (R3, the lead's reading of
    2026-11-26: host-needed wins). An index (``out[idx] = 0``) is no slice bound (a device index
    serves), and a value only printed syncs."""
    source = """
        import torch
        def train(model, loader, optimizer, out, logs):
            for x, mask in loader:
                y = model(x.cuda())
                y.sum().backward()
                optimizer.step()
                mask = mask.cuda()
                slen = mask[0].sum().item()
                n = slen - 2
                out[:n] = y[:n]
                logs.append(n)
                idx = mask[1].sum().item() - 1
                if 0 <= idx < out.size(0):
                    out[idx] = 0.0
                start = int(mask[2].sum().item())
                print(start)
        """
    assert diagnostics(source, "TPL102") == [(13, 14, ITEM, None, None), (16, 20, ITEM, None, None)]


# ---- TPL103 in a step body: the interval is the remedy ----------------------------------------


def test_tpl103_after_an_early_return_under_an_interval_in_a_callback_is_silent():
    """A demo callback that returns unless ``(global_step - 1) % every == 0`` (also ``or``-ed with
    another exit) frees the cache once per interval, here in a ``finally``; so does one under an
    interval ``if`` (spec: inside a step body the interval is the remedy)."""
    source = """
        import torch
        from lightning.pytorch.callbacks import Callback

        class Demo(Callback):
            def on_train_batch_end(self, trainer, module, outputs, batch, batch_idx):
                if (trainer.global_step - 1) % self.every != 0 or self.last == trainer.global_step:
                    return
                self.last = trainer.global_step
                try:
                    module(batch)
                finally:
                    torch.cuda.empty_cache()

        class Sampler(Callback):
            def on_train_batch_end(self, trainer, module, outputs, batch, batch_idx):
                if trainer.global_step % self.every == 0:
                    module(batch)
                    torch.cuda.empty_cache()
        """
    assert diagnostics(source, "TPL103") == []


def test_tpl103_after_a_flag_return_in_a_callback_still_fires():
    """Twin: returning unless a setting is on (``if not self.verbose: return``) is no interval:
    when it is on, the cache is freed every step."""
    source = """
        import torch
        from lightning.pytorch.callbacks import Callback

        class Demo(Callback):
            def on_train_batch_end(self, trainer, module, outputs, batch, batch_idx):
                if not self.verbose:
                    return
                try:
                    module(batch)
                finally:
                    torch.cuda.empty_cache()
        """
    assert diagnostics(source, "TPL103") == [(12, 12, EMPTY_CACHE, None, None)]


# ---- a comprehension's filter tests a tensor's truth --------------------------------------------
TRUTH = SYNC.format(what="testing a tensor's truth")


def test_tpl102_a_comprehension_filter_on_a_device_tensor_syncs_per_item():
    """``{... for i in range(n) if not torch.isnan(loss_all[i])}`` calls ``bool()`` on a device
    tensor for every item, every step (under a setting, which is no interval)."""
    source = """
        import torch
        def train(model, loader, optimizer, log_info, n):
            for x, y in loader:
                loss_all = model(x.cuda())
                loss_all.sum().backward()
                optimizer.step()
                if log_info:
                    logs = {i: loss_all[i].detach() for i in range(n) if not torch.isnan(loss_all[i])}
        """
    assert diagnostics(source, "TPL102") == [(9, 65, TRUTH, None, None)]


def test_tpl102_a_comprehension_filter_on_host_values_or_at_an_interval_is_silent():
    """Twin: a filter on Python numbers, on a CPU tensor, or under an interval ``if``."""
    source = """
        import torch
        def train(model, loader, optimizer, n, step):
            weights = torch.ones(n)
            for x, y in loader:
                loss_all = model(x.cuda())
                loss_all.sum().backward()
                optimizer.step()
                picked = [i for i in range(n) if i % 2]
                kept = [i for i in range(n) if weights[i] > 0]
                if step % 100 == 0:
                    logs = {i: loss_all[i].detach() for i in range(n) if not torch.isnan(loss_all[i])}
        """
    assert diagnostics(source, "TPL102") == []


# ---- token ids listed in a comprehension for a tokenizer's batch_decode ------------------------
TOLIST = SYNC.format(what="`.tolist()`")


def test_tpl102_ids_listed_for_batch_decode_are_host_needed():
    """``ids = [torch.cat((q, r)).tolist() for ...]`` handed to ``tokenizer.batch_decode``: text
    decoding needs the ids on the host (spec: a tokenizer's decode is host-needed)."""
    source = """
        import torch
        def train(model, loader, optimizer, tokenizer, scorer):
            for queries, responses in loader:
                loss = model(queries.cuda()).sum()
                loss.backward()
                optimizer.step()
                ids = [torch.cat((q, r), dim=-1).tolist() for q, r in zip(queries.cuda(), responses.cuda())]
                texts = tokenizer.batch_decode(ids, skip_special_tokens=True)
                scorer(texts)
        """
    assert diagnostics(source, "TPL102") == []


def test_tpl102_ids_listed_for_a_log_still_sync():
    """Twin: the same list kept for a log is no decoding: each ``.tolist()`` syncs every step."""
    source = """
        import torch
        def train(model, loader, optimizer, history):
            for queries, responses in loader:
                loss = model(queries.cuda()).sum()
                loss.backward()
                optimizer.step()
                ids = [torch.cat((q, r), dim=-1).tolist() for q, r in zip(queries.cuda(), responses.cuda())]
                history.append(ids)
        """
    assert diagnostics(source, "TPL102") == [(8, 15, TOLIST, None, None)]


def test_tpl102_a_size_clamped_into_its_own_name_is_still_a_size():
    """``start = max(0, start)`` (axolotl's per-sequence slice bounds) and ``k = max(k, 1)`` before
    ``torch.topk(x, k)``: a clamp into the same name keeps the value a size the host needs (rules.md:
    shapes and sizes, and ``topk``'s ``k`` torch reads on the host). The development set's labels
    count the ``topk`` form as a per-step sync (anomalib uninet anomaly_map.py:90); rules.md does not
    (docs/precision.md, 2026-11-26 prec3)."""
    source = """
        import torch
        def train(model, loader, optimizer, h, w, out):
            for x, y in loader:
                maps = model(x.cuda())
                maps.sum().backward()
                optimizer.step()
                weights = maps.mean(dim=(1, 2))
                lens = (y.cuda() > 0).sum(1)
                for i in range(4):
                    k = int(h * w * weights[i])
                    k = max(k, 1)
                    top = torch.topk(maps[i].flatten(), k).values
                    start = lens[i].item() - 1
                    start = max(0, start)
                    out[i, :start] = maps[i, start:]
        """
    assert diagnostics(source, "TPL102") == []


def test_tpl102_a_clamped_value_used_as_a_number_still_syncs():
    """Flagged twin: after the clamp the value is logged, not used as a size."""
    source = """
        import torch
        def train(model, loader, optimizer, logs):
            for x, y in loader:
                maps = model(x.cuda())
                maps.sum().backward()
                optimizer.step()
                k = int(maps.mean())
                k = max(k, 1)
                logs.append(k)
        """
    assert diagnostics(source, "TPL102") == [(8, 12, SYNC.format(what="`int()` of a tensor"), None, None)]


# ---- torch.nonzero(x): the function form reads its argument, as x.nonzero() reads x -----------------
def test_tpl102_torch_nonzero_of_a_host_batch_waits_for_no_device():
    """axolotl's sample picker: ``torch.nonzero(answer_mask)`` of labels taken from a loader batch
    that was never moved is read on the host (rules.md "Where a value lives"), as
    ``answer_mask.nonzero()`` already was; of the model's output it syncs every step."""
    source = """
        import torch
        def pick(dataloader, model, optimizer):
            for batch in dataloader:
                labels = batch.get("labels")
                answer_mask = labels[0] != -100
                first = int(torch.nonzero(answer_mask, as_tuple=False)[0].item())
                also = torch.nonzero(input=answer_mask)
                out = model(batch["input_ids"].cuda())
                out.sum().backward()
                optimizer.step()
                hits = torch.nonzero(out > 0)
        """
    assert diagnostics(source, "TPL102") == [(12, 15, SYNC.format(what="`.nonzero()`"), None, None)]


# ---- decoding: every read of the value a decoding loop stops on is host-needed ---------------------
def test_tpl102_reads_of_the_token_a_decoding_loop_stops_on_are_host_needed():
    """transfer-learning-conv-ai's ``sample_sequence``: the loop stops on ``prev.item() in
    special_ids`` (host-needed, rules.md), so appending ``prev.item()`` to the output and testing it
    before resampling wait for nothing the host does not need anyway."""
    source = """
        import torch
        def sample(model, ids, special_ids, min_len, max_len):
            out = []
            for i in range(max_len):
                probs = model(torch.tensor([ids + out], device="cuda"))[0, -1].softmax(-1)
                prev = torch.multinomial(probs, 1)
                if i < min_len and prev.item() in special_ids:
                    prev = probs.argmax()
                if prev.item() in special_ids:
                    break
                out.append(prev.item())
            return out
        """
    assert diagnostics(source, "TPL102") == []


def test_tpl102_a_value_no_stop_test_reads_still_syncs():
    """Flagged twins: the loop stops on another value (``done``), it trains (a loop that runs an
    update pays the stop test every step, rules.md), or the test only raises on a bad shape (an
    error check, no stop decision: deep-person-reid's visualize_actmap; that loop steps an
    optimizer, so its copy is not an evaluation result, R8)."""
    source = """
        import torch
        def sample(model, ids, max_len, optimizer, loader):
            out = []
            for i in range(max_len):
                probs = model(torch.tensor([ids + out], device="cuda"))[0, -1].softmax(-1)
                prev = torch.multinomial(probs, 1)
                done = probs.max()
                if done.item() > 0.99:
                    break
                out.append(prev.item())
            for i in range(max_len):
                loss = model(torch.tensor([ids], device="cuda")).sum()
                loss.backward()
                optimizer.step()
                if loss.item() < 0.01:
                    break
                out.append(loss.item())
            for x in loader:
                feats = model(x.cuda())
                if feats.dim() != 4:
                    raise ValueError("feature maps expected")
                out.append(feats.cpu())
                optimizer.step()
            return out
        """
    assert diagnostics(source, "TPL102") == [
        (11, 19, SYNC.format(what="`.item()`"), None, None),
        (16, 11, SYNC.format(what="`.item()`"), None, None),
        (18, 19, SYNC.format(what="`.item()`"), None, None),
        (23, 19, SYNC.format(what="`.cpu()`"), None, None),
    ]


# ---- a host copy handed to an index op: the indexed tensor is on the host -------------------------
def test_tpl102_a_host_copy_handed_to_an_index_op_is_required_by_torch():
    """dino's ``features.index_copy_(0, index_all.cpu(), torch.cat(output_l).cpu())`` for a host
    feature bank and sd-scripts' ``torch.index_select(alphas, 0, timesteps.cpu())`` for a CPU
    schedule: the index (and source) must be on the indexed tensor's device, so the copy is one
    torch requires on the host (rules.md). The same copy handed elsewhere still syncs, and so does an
    index that stays on the device (``torch.nonzero(mask)`` handed to ``index_select``)."""
    source = """
        import torch
        def train(model, loader, optimizer, bank, alphas, logs):
            for x, idx in loader:
                feats = model(x.cuda())
                feats.sum().backward()
                optimizer.step()
                ids = idx.cuda()
                bank.index_copy_(0, ids.cpu(), feats.detach().cpu())
                a = torch.index_select(alphas, 0, ids.cpu())
                b = alphas.index_select(0, index=ids.cpu())
                logs.append(ids.cpu())
                picked = torch.nonzero(feats > 0).view(-1)
                c = feats.index_select(0, picked)
        """
    assert diagnostics(source, "TPL102") == [
        (12, 20, SYNC.format(what="`.cpu()`"), None, None),
        (13, 17, SYNC.format(what="`.nonzero()`"), None, None),
    ]


# ---- a host list reaches a decoder through names made from it -------------------------------------
def test_tpl102_token_ids_that_reach_batch_decode_through_a_loop_are_host_needed():
    """axolotl's table callback: ``tokens = seqs.cpu().tolist()``, the prompt cut off each sequence
    in a ``for`` over ``zip(prompts, tokens)`` and appended to a list that ``batch_decode`` reads:
    decoding needs the ids on the host (rules.md). Flagged twins: the cut ids are only kept, and
    arrays collected every step for numpy after the loop (timm's inference.py: one copy at the end
    would do)."""
    source = """
        import numpy as np
        import torch
        def table(model, loader, tokenizer, optimizer, rows):
            everything = []
            for batch in loader:
                loss = model(batch.cuda()).sum()
                loss.backward()
                optimizer.step()
                prompts = batch.tolist()
                predictions = model.generate(batch.cuda())
                tokens = predictions.cpu().tolist()
                rest = []
                for prompt, seq in zip(prompts, tokens):
                    cut = seq[len(prompt):]
                    rest.append(cut)
                rows.append(tokenizer.batch_decode(rest))
                other = predictions.cpu().tolist()
                kept = []
                for seq in other:
                    kept.append(seq[1:])
                rows.append(kept)
                everything.append(predictions.cpu().numpy())
            return np.concatenate(everything)
        """
    assert diagnostics(source, "TPL102") == [
        (18, 16, SYNC.format(what="`.cpu()`"), None, None),
        (23, 26, SYNC.format(what="`.cpu()`"), None, None),
    ]


# ---- builtin max/min of tensors in a step method that names no model or loss ----------------------
def test_tpl102_builtin_max_of_tensors_in_a_step_method_without_model_words():
    """anomalib ganomaly's ``test_step``: ``max(self.max_scores, torch.max(batch.pred_score))``
    compares tensors with ``bool(a > b)`` every step; the unit names no model, loss or sync, and the
    text prefilter let it through only on those words. Silent twin: max of Python numbers."""
    source = """
        import torch
        import lightning.pytorch as pl
        class Detector(pl.LightningModule):
            def test_step(self, batch, batch_idx):
                self.max_scores = max(self.max_scores, torch.max(batch.pred_score))
                return batch
            def validation_step(self, batch, batch_idx):
                self.longest = max(self.longest, len(batch))
                return batch
        """
    assert diagnostics(source, "TPL102") == [
        (6, 26, SYNC.format(what="builtin `max()` of tensors"), None, None)]


# ---- (old framework holdout) %-formatting with a built format string and unpacked tensors --------
def test_tpl102_a_built_format_string_and_unpacked_tensors_format_the_tensors():
    """yolov5's progress bar, every batch: ``("%11s" * 2 + "%11.4g" * 5) % (e, mem, *mloss, n, s)``
    with ``mloss`` a device tensor: each unpacked item is formatted (read). Silent twins: the same
    string with Python numbers unpacked, and a format string that is not written in the source."""
    source = """
        import torch
        def train(model, loader, optimizer, pbar, fmt, device):
            mloss = torch.zeros(3, device=device)
            sizes = [1, 2, 3]
            for i, (x, y) in enumerate(loader):
                loss, items = model(x.cuda())
                loss.backward()
                optimizer.step()
                mloss = (mloss * i + items) / (i + 1)
                pbar.set_description(("%11s" * 2 + "%11.4g" * 3) % ("a", "b", *mloss))
                pbar.set_description(("%11s" * 2 + "%11.4g" * 3) % ("a", "b", *sizes))
                pbar.set_description(fmt % ("a", "b"))
        """
    assert diagnostics(source, "TPL102") == [(11, 29, SYNC.format(what="formatting a tensor"), None, None)]


# ---- (old framework holdout) a loop of a step body is never an epoch-level loop ------------------
def test_tpl102_a_loop_of_a_step_body_runs_every_step_even_when_a_nested_loop_runs_the_model():
    """SwAV's loss, called every training step: ``for i in crops:`` tests a device tensor, and its
    nested loop calls a softmax module. In a step loop's shape that outer loop would be epoch-level
    (its steps in the nested loop); in a step body it runs every step. Silent twin: the same loop in
    a plain function that no step calls keeps the epoch-level reading."""
    source = """
        import torch
        import lightning.pytorch as pl
        class SwAV(pl.LightningModule):
            def __init__(self):
                super().__init__()
                self.softmax = torch.nn.Softmax(dim=1)
            def training_step(self, batch, batch_idx):
                out, queue = batch
                loss = 0
                for i in range(2):
                    if not torch.all(queue[i] == 0):
                        out = torch.cat((queue[i], out))
                    for v in range(3):
                        loss = loss + self.softmax(out).sum()
                return loss
        def fit(model, loaders, flags):
            for loader in loaders:
                if not torch.all(flags == 0):
                    print("flags")
                for x in loader:
                    model(x.cuda()).sum().backward()
        """
    assert diagnostics(source, "TPL102") == [
        (12, 15, SYNC.format(what="testing a tensor's truth"), None, None)]


# ---- (old framework holdout) a module's parameters are tensors where the module lives ----------------
def test_tpl102_a_module_s_parameters_are_tensors_of_the_device():
    """dino's ``clip_gradients``, called every step: ``for name, p in model.named_parameters():``
    gives the model's tensors, so ``clip_coef = clip / (p.grad.norm(2) + 1e-6)`` is a device
    tensor and ``if clip_coef < 1:`` waits for it. Silent twins: a model of the file never moved
    (its parameters are on the host), and a loop variable the linter cannot tell is a module (its
    ``.parameters()`` are no tensors the linter knows of; their ``.norm()`` would be one, R53)."""
    source = """
        import torch
        def clip_gradients(model, clip, modules):
            for name, p in model.named_parameters():
                clip_coef = clip / (p.grad.norm(2) + 1e-6)
                if clip_coef < 1:
                    p.grad.mul_(clip_coef)
            for m in modules:
                for q in m.parameters():
                    if q.grad > clip:
                        q.grad.zero_()
        def train(model, loader, opt, modules):
            for x in loader:
                model(x.cuda()).sum().backward()
                clip_gradients(model, 3.0, modules)
                opt.step()
        def fit_on_host(xs):
            net = torch.nn.Linear(3, 1)
            opt = torch.optim.SGD(net.parameters(), lr=0.1)
            for x in xs:
                net(x).sum().backward()
                for p in net.parameters():
                    if p.grad.norm() > 1:
                        p.grad.zero_()
                opt.step()
        """
    assert diagnostics(source, "TPL102") == [
        (6, 11, SYNC.format(what="testing a tensor's truth") + " (called every step from <string>:15)",
         None, None)]
