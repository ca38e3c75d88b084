"""prec9 (docs/precision.md "prec9"): the policy-level classes of false findings on holdout4-9, each
with a silent form and a flagged twin, asserting whole diagnostics.

R10 a message in a branch taken only when a value is not finite; R11 a call made in a branch that
runs only in evaluation carries the evaluation to its callee (tests/project/test_prec9_chains.py);
R12 the key of a lookup in a standard-library container; R13 an interval inside the
accumulation ``if`` (TPL103) and a few models written out in steps (TPL102)."""

from __future__ import annotations

from _diagnostics import EMPTY_CACHE as EMPTY, SYNC_TEMPLATE as SYNC, rule_diagnostics as diagnostics

ITEM = SYNC.format(what="`.item()`")
CPU = SYNC.format(what="`.cpu()`")
FLOAT = SYNC.format(what="`float()` of a tensor")
TRUTH = SYNC.format(what="testing a tensor's truth")
PRINT = SYNC.format(what="printing a tensor")
FORMAT = SYNC.format(what="formatting a tensor")

# ---- R10: a message in a branch taken only when a value is not finite ------------------------------

NAN_MESSAGES = """
    import math
    import torch
    def train(model, loader, optimizer, log):
        for batch in loader:
            xt = model(batch.cuda())
            c = model(xt)
            if torch.isnan(c).any():
                print(f"NaN after: xt.min(): {xt.min()}")
                print(xt.sum().item(), float(xt.mean()))
            p = model(c)
            if torch.isnan(p).any():
                print("nans:", torch.isnan(p).sum(), "set to 0")
                p = torch.nan_to_num(p)
            if torch.isfinite(p).all():
                p = p * 2
            else:
                log.warning("bad %s" % p.max())
            num_nans = torch.isnan(p).sum()
            if num_nans > 0:
                log.warning(f"{num_nans} failed, max {xt.max()}")
            if not math.isfinite(p.sum().item()):
                log.error("loss is {}".format(p.mean()))
            p.sum().backward()
            optimizer.step()
    """


def test_r10_messages_in_a_branch_taken_only_on_a_non_finite_value_are_not_per_step():
    """dirichlet-flow-matching's ``if torch.isnan(c_factor).any(): print(f"... {xt.min()}")``: the
    test is the per-step sync (reported); the message reports a failure, once the run has gone
    wrong. The ``else`` of a finiteness test, a count of NaNs compared ``> 0``, and a negated
    ``math.isfinite`` are such branches too; printing, f-strings, ``%`` and ``.format`` alike (the same lines are flagged without this reading)."""
    assert diagnostics(NAN_MESSAGES, "TPL102") == [
        (8, 11, TRUTH, None, None), (12, 11, TRUTH, None, None), (15, 11, TRUTH, None, None),
        (20, 11, TRUTH, None, None), (22, 29, ITEM, None, None)]


def test_r10_the_same_messages_under_a_bound_or_a_finite_test_stay_flagged():
    """Flagged twins: a bound test (BigVGAN's and vits' ``if torch.min(y) < -1.0: print(...)``,
    holdout3 judged the print true) is no failure branch, nor the branch a finite value takes (it
    runs every healthy step), nor a ``<= 0`` count test."""
    source = (NAN_MESSAGES.replace("if torch.isnan(c).any():", "if c.min() < -1.0:")
              .replace("if torch.isfinite(p).all():\n                p = p * 2\n            else:\n",
                       "if torch.isfinite(p).all():\n                p = p * 2\n            if True:\n")
              .replace("if num_nans > 0:", "if num_nans <= 0:").replace("if not math.isfinite(", "if math.isfinite("))
    assert diagnostics(source, "TPL102") == [
        (8, 11, TRUTH, None, None), (9, 12, PRINT, None, None), (10, 18, ITEM, None, None),
        (10, 35, FLOAT, None, None), (12, 11, TRUTH, None, None), (15, 11, TRUTH, None, None),
        (18, 24, FORMAT, None, None), (20, 11, TRUTH, None, None), (21, 24, FORMAT, None, None),
        (22, 25, ITEM, None, None), (23, 22, FORMAT, None, None)]


def test_r10_values_taken_for_use_in_a_failure_branch_still_sync():
    """Flagged twin: only messages are left alone; a value read there for use (a metric summed,
    rows found with ``.nonzero()``: trl's reward check, a development-set label) waits as before."""
    source = """
        import torch
        def train(model, loader, optimizer, totals):
            for batch in loader:
                out = model(batch.cuda())
                if torch.isnan(out).any():
                    totals["bad"] += out.abs().sum().item()
                    row = torch.isnan(out).nonzero()
                out.sum().backward()
                optimizer.step()
        """
    nonzero = SYNC.format(what="`.nonzero()`")
    assert diagnostics(source, "TPL102") == [(6, 11, TRUTH, None, None), (7, 29, ITEM, None, None),
                                             (8, 18, nonzero, None, None)]


# ---- R12: the key of a lookup in a standard-library container --------------------------------------

KEYS = """
    import collections
    from collections import defaultdict
    import torch
    def test_step(model, loader, out):
        for batch in loader:
            reps = model(batch.cuda())
            embeddings = collections.defaultdict(list)
            weights = defaultdict(list)
            for rep, ids in zip(reps, batch["ids"].cuda()):
                embeddings[ids.item()].append(rep)
                weights[ids.max().item()].append(rep.sum())
            out.append(embeddings)
    """


def test_r12_an_id_that_keys_a_defaultdict_is_host_needed():
    """dpr-scale's CITADEL retrieval: ``embeddings[expert_id.item()].append(...)`` into a
    ``collections.defaultdict(list)``: a dict key must be a Python number (a tensor key hashes by
    identity), so the host must have it (R3), as for a dict the code writes as a display."""
    assert diagnostics(KEYS, "TPL102") == []


def test_r12_a_counter_written_or_a_container_of_unknown_kind_keeps_the_key_flagged():
    """Flagged twins: a write into the container (``counts[k] += 1``, a histogram the device could
    keep with ``bincount``) is no lookup, and a container handed in from elsewhere may be a tensor."""
    source = (KEYS.replace("embeddings[ids.item()].append(rep)", "embeddings[ids.item()] += 1")
              .replace("weights = defaultdict(list)", "weights = out[0]"))
    assert diagnostics(source, "TPL102") == [(11, 23, ITEM, None, None), (12, 20, ITEM, None, None)]


# ---- R13: intervals ----------------------------------------------------------------------------------

ACCUMULATION = """
    import torch
    def train(model, loader, optimizer, args):
        global_step = 0
        for step, batch in enumerate(loader):
            loss = model(batch.cuda())
            loss.backward()
            if (step + 1) % args.accum == 0:
                optimizer.step()
                optimizer.zero_grad()
                global_step += 1
                if args.do_eval and global_step % args.save_steps == 0:
                    torch.save(model.state_dict(), "m.pt")
                    torch.cuda.empty_cache()
    """


def test_r13_an_interval_inside_the_accumulation_if_is_the_remedy():
    """CodeT5's ``if global_step % save_steps == 0: ... empty_cache()`` inside the ``if`` that steps
    the optimizer: it frees the cache once per ``save_steps`` updates (R9)."""
    assert diagnostics(ACCUMULATION, "TPL103") == []


def test_r13_the_accumulation_if_alone_is_no_interval():
    """Flagged twins: the call in the accumulation ``if`` itself (ConvNeXt-V2, R9), and under an
    inner ``if`` that tests a flag, not a counter."""
    source = ACCUMULATION.replace("                    torch.cuda.empty_cache()\n", "                torch.cuda.empty_cache()\n")
    assert diagnostics(source, "TPL103") == [(14, 12, EMPTY, None, None)]
    flag = ACCUMULATION.replace("args.do_eval and global_step % args.save_steps == 0", "args.do_eval")
    assert diagnostics(flag, "TPL103") == [(14, 16, EMPTY, None, None)]


SAMPLES = """
    import torch
    from torchvision.utils import make_grid
    class Trainer:
        def train_step(self, steps, device):
            loss = self.vae(next(self.dl_iter).to(device))
            loss.backward()
            self.optim.step()
            if not (steps % self.save_results_every):
                vaes = ((self.vae, str(steps)),)
                if self.use_ema:
                    vaes = ((self.ema_vae.ema_model, f"{steps}.ema"),) + vaes
                for model, filename in vaes:
                    valid = next(self.valid_dl_iter).to(device)
                    recons = model(valid, return_recons=True)
                    grid = make_grid(torch.stack((valid, recons)).detach().cpu())
    """


def test_r13_a_few_models_written_out_under_an_interval_run_at_the_interval():
    """muse-maskgit's trainer: the models to sample are a tuple display, extended by another under
    ``if self.use_ema:`` (``((ema, name),) + vaes``): still a few things written out, so the loop
    runs a few times at each interval (rules.md "An interval"; DALLE2's VQGAN trainer, one display)."""
    assert diagnostics(SAMPLES, "TPL102") == []


def test_r13_a_name_bound_to_something_else_is_not_a_few_models():
    """Flagged twin: ``vaes`` also bound to what a call returns (of unknown length: batches, maybe)."""
    source = SAMPLES.replace("vaes = ((self.ema_vae.ema_model, f\"{steps}.ema\"),) + vaes",
                             "vaes = self.models_to_sample()")
    assert diagnostics(source, "TPL102") == [(16, 33, CPU, None, None)]


# ---- R11 in one file: a helper called in the evaluation branch of a loop that trains in one mode ------

MODES = """
    import torch
    def run_epoch(model, loader, optimizer, mode, kept):
        for batch in loader:
            out = model(batch.cuda())
            if mode == "train":
                out.sum().backward()
                optimizer.step()
            else:
                keep(out, kept)
    def keep(out, kept):
        kept.append(out.argmax(-1).cpu())
        return out.max().item()
    """


def test_r11_a_helper_called_only_in_the_evaluation_branch_of_a_loop_copies_results():
    """The loop trains when ``mode == "train"``; its ``else`` runs only in evaluation, and so does
    the helper called there (R8 for the copy; the metric's ``.item()`` stays flagged, with its chain)."""
    assert diagnostics(MODES, "TPL102") == [(13, 11, ITEM + " (called every step from <string>:10)", None, None)]


def test_r11_the_helper_called_on_the_training_path_too_keeps_its_copy_flagged():
    source = MODES.replace("                optimizer.step()\n", "                optimizer.step()\n                keep(out, kept)\n")
    chain = " (called every step from <string>:9)"
    assert diagnostics(source, "TPL102") == [(13, 16, CPU + chain, None, None), (14, 11, ITEM + chain, None, None)]


def test_r11_a_helper_the_training_branch_also_calls_every_n_steps_is_shared_code():
    """Flagged twin (trl's ``_prepare_inputs``: ``if mode == "train": (every N steps)
    self._generate_and_score_completions(...) else: self._generate_and_score_completions(...)``, two
    holdout labels): the training branch calls the same helper under an interval, which the index
    records as no per-step call; the helper is shared with training, not evaluation code."""
    source = """
        import torch
        def run_epoch(model, loader, optimizer, mode, kept):
            for step, batch in enumerate(loader):
                out = model(batch.cuda())
                if mode == "train":
                    out.sum().backward()
                    optimizer.step()
                    if step % 10 == 0:
                        keep(out, kept)
                else:
                    keep(out, kept)
        def keep(out, kept):
            kept.append(out.argmax(-1).cpu())
            return out.max().item()
        """
    chain = " (called every step from <string>:12)"
    assert diagnostics(source, "TPL102") == [(14, 16, CPU + chain, None, None), (15, 11, ITEM + chain, None, None)]


# ---- R14: a helper's parameter that every per-step call hands a loader batch on the host -------------

LOUDNESS = """
    import torch
    def normalize_loudness(wav, floor=3e-4):
        energy = wav.pow(2).mean().sqrt().item()
        if energy < floor:
            return wav, 0
        return wav * 2, energy
    def process_shard(ds, vad_model, sink):
        dl = torch.utils.data.DataLoader(ds, num_workers=1, batch_size=None)
        for s in dl:
            audio, sr = s["audio"]
            shift = audio.mean()
            audio, gain = normalize_loudness(audio[:, :sr * 3600] - shift)
            sink.write(vad_model(audio))
    """


def test_r14_a_loader_batch_handed_to_a_helper_is_on_the_host_there():
    """WhisperSpeech's ``normalize_loudness(audio[:, :n] - shift)``: ``audio`` comes from a batch of
    a DataLoader that nothing moved (rules.md "Where a value lives"), through unpacking, slicing and
    a tensor's arithmetic; every per-step call hands the helper such a value, so its ``.item()``
    waits for no device. ``audio`` is bound again after the call (by what the helper returns): the
    binding that runs right before the call, every time round, decides."""
    assert diagnostics(LOUDNESS, "TPL102") == []


def test_r14_a_batch_moved_or_bound_in_a_branch_before_the_call_is_not_known_host():
    """Flagged twins: the batch moved before the call; moved in a branch between the binding and
    the call (the binding that reaches the call is not known); a loader that a wrapper puts on the
    device (``accelerator.prepare``); a batch moved in place (``s.to(...)`` on a PyG batch); a move
    on the call's own line, before it (``audio = audio.cuda(); helper(audio)``)."""
    moved = LOUDNESS.replace('audio, sr = s["audio"]', 'audio, sr = s["audio"]\n            audio = audio.cuda()')
    assert diagnostics(moved, "TPL102") == [(4, 13, ITEM + " (called every step from <string>:14)", None, None)]
    branch = LOUDNESS.replace("shift = audio.mean()", "shift = audio.mean()\n            if sr > 8000:\n"
                                                            "                audio = audio.cuda()")
    assert diagnostics(branch, "TPL102") == [(4, 13, ITEM + " (called every step from <string>:15)", None, None)]
    prepared = LOUDNESS.replace("for s in dl:", "dl = accelerator.prepare(dl)\n        for s in dl:")
    assert diagnostics(prepared, "TPL102") == [(4, 13, ITEM + " (called every step from <string>:14)", None, None)]
    in_place = LOUDNESS.replace('audio, sr = s["audio"]', 's.to("cuda")\n            audio, sr = s["audio"]')
    assert diagnostics(in_place, "TPL102") == [(4, 13, ITEM + " (called every step from <string>:14)", None, None)]
    same_line = LOUDNESS.replace("audio, gain = normalize_loudness(", "audio = audio.cuda(); audio, gain = normalize_loudness(")
    assert diagnostics(same_line, "TPL102") == [(4, 13, ITEM + " (called every step from <string>:13)", None, None)]


def test_r14_a_binding_later_in_a_loop_around_the_call_reaches_it_the_next_time_round():
    """Flagged twin: ``audio`` is bound before the inner loop, and again inside it after the call
    (by a model's output on the device): from the second time round the call hands that one."""
    source = """
        import torch
        def normalize_loudness(wav):
            return wav.pow(2).mean().sqrt().item()
        def process_shard(ds, model):
            dl = torch.utils.data.DataLoader(ds, num_workers=1, batch_size=None)
            for s in dl:
                audio = s["audio"]
                for k in range(3):
                    normalize_loudness(audio)
                    audio = model(audio)
        """
    assert diagnostics(source, "TPL102") == [(4, 11, ITEM + " (called every step from <string>:10)", None, None)]
    once = source.replace("                    audio = model(audio)\n", "                    out = model(audio)\n")
    assert diagnostics(once, "TPL102") == []


# ---- R16: pickle is a host library ------------------------------------------------------------------

GATHER = """
    import pickle
    import torch
    def all_gather_list(data, max_size=16384):
        enc = pickle.dumps(data)
        return torch.ByteTensor(list(enc))
    def train(model, loader, optimizer):
        for batch in loader:
            q = model(batch.cuda())
            q_to_send = torch.empty_like(q).cpu().copy_(q).detach_()
            gathered = all_gather_list([q_to_send, q.sum().item()])
            q.sum().backward()
            optimizer.step()
    """


def test_r16_copies_handed_to_a_helper_that_pickles_them_are_host_needed():
    """DPR's ``all_gather_list([q_vector_to_send, ...])``, which ``pickle.dumps`` its argument to send
    the bytes: pickling needs the values on the host (a device tensor is copied there to be
    pickled anyway), so the copy before it is a host need (R3), as a numpy consumer's is."""
    assert diagnostics(GATHER, "TPL102") == []


def test_r16_the_same_copies_handed_to_a_helper_that_keeps_them_as_tensors_stay_flagged():
    source = GATHER.replace("enc = pickle.dumps(data)\n        return torch.ByteTensor(list(enc))",
                            "return torch.stack(data[:1])")
    assert diagnostics(source, "TPL102") == [(9, 20, CPU, None, None), (10, 47, ITEM, None, None)]


# ---- R17: a name the function calls is a function or a module, not a tensor --------------------------

HEAD = """
    import torch
    import torch.nn.functional as F
    def evaluate(encoder, finetuned_head, test_dataset, device):
        est = []
        if finetuned_head is not None:
            finetuned_head = finetuned_head.to(device)
            finetuned_head.eval()
        with torch.no_grad():
            for idx in range(len(test_dataset)):
                output = encoder(test_dataset[idx].to(device))
                if finetuned_head:
                    output = finetuned_head(output)
                est.append(F.softmax(output, dim=1).mean(dim=0))
        return est
    """


def test_r17_a_name_the_function_calls_is_a_module_that_to_moves():
    """CLMR's ``finetuned_head = finetuned_head.to(device)`` then ``output = finetuned_head(output)``:
    a tensor is not callable, so ``.to(device)`` moved a module and ``if finetuned_head:`` tests
    whether there is one (R4's reading the other way round: ``.to(x)`` says what ``x`` is only where
    the code shows it)."""
    assert diagnostics(HEAD, "TPL102") == []


def test_r17_the_same_name_never_called_is_a_tensor_moved_to_the_device():
    """Flagged twin: with no call of it, ``scale.to(device)`` is a tensor's move, and ``if scale:``
    reads the tensor."""
    source = (HEAD.replace("finetuned_head", "scale")
              .replace("output = scale(output)", "output = output * 2"))
    assert diagnostics(source, "TPL102") == [(12, 15, TRUTH, None, None)]
