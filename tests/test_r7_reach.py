"""R7's reach inside one file (issue 20, holdout5): what counts as a copy the host keeps in a loop
that trains nothing, with autograd off. Whole diagnostics, each form with its silent twin (a loop
under ``torch.no_grad()`` that trains nothing) and its flagged twin (the same body in a loop that
steps the optimizer)."""

from __future__ import annotations

from _diagnostics import SYNC_TEMPLATE as SYNC, rule_diagnostics as diagnostics

ITEM = SYNC.format(what="`.item()`")
CPU = SYNC.format(what="`.cpu()`")
TOLIST = SYNC.format(what="`.tolist()`")
INT = SYNC.format(what="`int()` of a tensor")

KEPT = """
    import torch
    def cache(model, loader, optimizer, kept, lines):
        with torch.no_grad():
            for batch in loader:
                ids = batch["ids"].cuda()
                logps = model(ids).logits.sum(-1)
                for k, v in zip(ids.tolist(), logps.tolist()):
                    kept.append((tuple(k), v))
                rows = [{"id": i, "score": s} for i, s in enumerate(logps.tolist())]
                kept.extend(rows)
                for i in range(ids.size(0)):
                    line = "{} {}\\n".format(i, str(int(ids[i].cpu().numpy())))
                    lines.append(line)
                named = {i.item(): v for i, v in zip(ids, logps)}
                kept.append(named)
                kept.append(logps.sum().item())
    """


def test_r7_copies_iterated_by_host_code_formatted_or_used_as_keys_are_kept_results():
    """HALOs' reference log-probs (``for k, v in zip(ids.tolist(), ...)``: the iterable of a host
    ``for``), a comprehension over the copy, VideoMAE's result lines (``str(int(t.cpu().numpy()))``
    formatted into a line that is appended), Deformable-DETR's ids as dict keys (R3: a Python dict
    key). The metric's ``.item()`` appended per batch stays flagged."""
    assert diagnostics(KEPT, "TPL102") == [(17, 24, ITEM, None, None)]


def test_r7_the_same_copies_in_a_loop_that_trains_stay_flagged():
    """Flagged twin: the loop steps the optimizer (R7 never covers a training loop, nor a loop
    nested in one: the result lines' loop runs every training step). The ids taken as a dict's
    keys stay silent: a Python dict needs its keys on the host in any loop (R31, R95)."""
    source = KEPT.replace("                kept.append(logps.sum().item())\n",
                          "                kept.append(logps.sum().item())\n                optimizer.step()\n")
    assert diagnostics(source, "TPL102") == [
        (8, 28, TOLIST, None, None),
        (8, 42, TOLIST, None, None),
        (10, 64, TOLIST, None, None),
        (13, 51, CPU, None, None),
        (17, 24, ITEM, None, None),
    ]


RETURNED = """
    import torch
    import numpy as np
    def run_model(batch, model, device):
        image, mean, fname = batch
        output = model(image.to(device)).cpu()
        output = output * 2 + mean
        return output, fname[0]
    def infer(model, loader, device, outputs):
        for batch in loader:
            with torch.no_grad():
                output, fname = run_model(batch, model, device)
            outputs[fname].append(output)
    def rerank(model, loader, results):
        for qids, batch in loader:
            with torch.no_grad():
                scores = model(batch.cuda()).scores.cpu().float().numpy()
                for i in range(len(scores)):
                    score = scores[i][0]
                    results.setdefault(qids[i], []).append(score)
    """


def test_r7_a_copy_returned_to_an_inference_loop_or_kept_through_an_item_is_a_result():
    """fastMRI's ``run_unet_model`` returns the reconstruction's ``.cpu()`` copy to the ``no_grad``
    loop that keeps it (every visible caller runs inference); tevatron's reranker keeps an item of
    the scores (``score = scores[i][0]``, appended)."""
    assert diagnostics(RETURNED, "TPL102") == []


def test_r7_a_copy_returned_to_a_training_loop_or_an_item_only_printed_stays_flagged():
    """Flagged twins: a training loop also calls the helper (not every chain runs inference), and
    the scores' item is only printed, in a function whose name says it trains (so that R8, which
    leaves every copy of a loop that trains nothing silent, stays off and R7 alone decides)."""
    trained = RETURNED + """
    def train(model, loader, device, optimizer):
        for batch in loader:
            output, _ = run_model(batch, model, device)
            output.sum().backward()
            optimizer.step()
    """
    chain = " (called every step from <string>:12)"
    assert diagnostics(trained, "TPL102") == [(6, 13, CPU + chain, None, None)]
    printed = (RETURNED.replace("results.setdefault(qids[i], []).append(score)", "print(score)")
               .replace("def rerank(", "def train_reranker("))
    assert diagnostics(printed, "TPL102") == [(17, 21, CPU, None, None)]


IGNITE = """
    import torch
    from ignite.engine import Engine
    def covering(true_mask, pred_mask):
        labels = torch.unique(true_mask).tolist()
        hits = 0
        for i in labels:
            hits += int((pred_mask == i).any())
        return hits
    class Evaluator:
        def __init__(self, model):
            self.model = model
            self.engine = Engine(self._eval_step)

        @torch.no_grad()
        def _eval_step(self, engine, batch):
            output = self.model(batch["image"].cuda())
            return covering(batch["mask"].cuda(), output)
    """


def test_r7_an_ignite_engine_function_that_calls_no_backward_runs_inference():
    """object-centric-library's evaluator: Ignite's ``Engine`` only calls the function it was given
    (rules.md "A step body"), here a ``@torch.no_grad()`` step that calls no backward; the labels
    its helper copies are iterated by a host ``for`` (R7). The per-label ``int(t.any())`` is a
    truth test of a metric in an evaluation step, which R7 keeps flagged: ``pred_mask`` is the
    model's output that the only per-step caller hands ``covering`` (a device tensor, 2026-11-26)."""
    chain = " (called every step from <string>:18 via _eval_step)"
    assert diagnostics(IGNITE, "TPL102") == [(8, 16, INT + chain, None, None)]


def test_r7_an_ignite_engine_function_that_trains_keeps_the_copy_flagged():
    """Flagged twin: the Engine's function calls backward (and is not under no_grad)."""
    source = IGNITE.replace("        @torch.no_grad()\n", "").replace(
        "            return covering(batch[\"mask\"].cuda(), output)",
        "            output.sum().backward()\n            return covering(batch[\"mask\"].cuda(), output)")
    chain = " (called every step from <string>:18 via _eval_step)"
    assert diagnostics(source, "TPL102") == [(5, 13, TOLIST + chain, None, None), (8, 16, INT + chain, None, None)]


METRICS = """
    import torch
    import lightning.pytorch as pl
    class Lit(pl.LightningModule):
        def _metrics(self, batch):
            with self.profiler.profile("metrics"):
                bs = batch["x"].size(0)
                metrics = {
                    "errs": [batch["errs"][batch["ids"] == b].cpu().numpy() for b in range(bs)],
                    "R": batch["R"]}
                ret = {"metrics": metrics}
            return ret, bs
        def validation_step(self, batch, batch_idx):
            ret, _ = self._metrics(batch)
            return ret
    """


def test_r7_a_metrics_dict_a_helper_of_an_evaluation_step_returns_holds_results():
    """LoFTR: ``_compute_metrics``, called only from ``validation_step``/``test_step`` (Lightning
    runs them with autograd off), puts per-pair ``.cpu().numpy()`` errors into a dict nested in the
    dict it returns."""
    assert diagnostics(METRICS, "TPL102") == []


def test_r7_the_same_helper_called_from_training_step_stays_flagged():
    """Flagged twin: ``training_step`` calls the helper too."""
    source = METRICS + """
        def training_step(self, batch, batch_idx):
            ret, _ = self._metrics(batch)
            return batch["loss"]
    """
    chain = " (called every step from <string>:18 via training_step)"
    assert diagnostics(source, "TPL102") == [(9, 25, CPU + chain, None, None)]


PRECOMPUTE = """
    import torch
    def main(audio_decoder, data_loader, accelerator, precompute):
        if precompute:
            def apply_audio_decoder(batch):
                audio_decoder.to(batch["x"].device).eval()
                with torch.no_grad():
                    labels = audio_decoder.encode(**batch)["audio_codes"]
                return {"labels": labels, "len_audio": labels.sum(-1)}
        all_labels, all_lens = [], []
        for i, batch in enumerate(data_loader):
            generate_labels = apply_audio_decoder(batch)
            generate_labels = accelerator.gather_for_metrics(generate_labels)
            if accelerator.is_main_process:
                lab = generate_labels["labels"].cpu().transpose(1, 2)
                lens = generate_labels["len_audio"].cpu().squeeze(1)
                lab = [l[:, :int(n)] for (l, n) in zip(lab, lens)]
                all_labels.extend(lab)
                all_lens.extend(lens)
    """


def test_r7_a_precompute_loop_whose_helper_runs_the_model_under_no_grad():
    """parler-tts precomputes codec labels once per run: the loop's model work is in a helper
    defined beside it whose model call runs under ``torch.no_grad()``; the loop trains nothing and
    keeps the copies (extended into lists, iterated by a comprehension)."""
    assert diagnostics(PRECOMPUTE, "TPL102") == []


def test_r7_a_loop_whose_helper_runs_the_model_with_autograd_on_stays_flagged():
    """Flagged twins: the helper's model call outside ``no_grad``; the loop's own model call with
    autograd on beside the helper. Each in a function whose name says it trains: in ``main`` the
    loop trains nothing, and R8 leaves its copies silent whatever autograd does (last assert)."""
    grad_on = (PRECOMPUTE.replace("                with torch.no_grad():\n                    labels =",
                                  "                if True:\n                    labels =")
               .replace("def main(", "def train_main("))
    assert diagnostics(grad_on, "TPL102") == [(15, 18, CPU, None, None), (16, 19, CPU, None, None)]
    own_call = PRECOMPUTE.replace("            generate_labels = apply_audio_decoder(batch)\n",
                                  "            generate_labels = apply_audio_decoder(batch)\n"
                                  "            audio_decoder(batch)\n")
    assert diagnostics(own_call.replace("def main(", "def train_main("), "TPL102") == [
        (16, 18, CPU, None, None), (17, 19, CPU, None, None)]
    assert diagnostics(own_call, "TPL102") == []


WRITTEN = """
    import torch
    def scale_image(shape, masks):
        return masks[: shape[0]]
    def save_one_json(masks, jdict):
        jdict.append({"masks": masks})
    @torch.no_grad()
    def run(model, loader, jdict, shape):
        for im in loader:
            pred = model(im.cuda())
            masks = scale_image(shape, pred.permute(1, 2, 0).contiguous().cpu().numpy())
            save_one_json(masks, jdict)
    """


def test_r7_a_copy_handed_to_a_helper_whose_result_is_written_is_a_result():
    """yolov5's segmentation ``val.py``: the masks' copy goes through ``scale_image`` (numpy) and
    the result is written into the COCO JSON by ``save_one_json``: results written out (R7)."""
    assert diagnostics(WRITTEN, "TPL102") == []


def test_r7_a_copy_whose_result_only_a_logger_reads_stays_flagged():
    """Flagged twin: the scaled masks are only handed to a function that writes nothing by name (in
    a function whose name says it trains, so that R8 stays off and R7 alone decides)."""
    source = (WRITTEN.replace("            save_one_json(masks, jdict)", "            log_masks(masks, jdict)")
              .replace("def run(", "def train_and_log("))
    assert diagnostics(source, "TPL102") == [(11, 35, CPU, None, None)]
