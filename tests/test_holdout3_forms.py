"""Forms from the framework holdout3 set's verdicts (docs/precision_framework_verdicts_holdout3.tsv)
that rules.md already decides: whole diagnostics (line, column, message, fix and its
applicability), each form with its flagged twin."""

from __future__ import annotations

from _diagnostics import CPU_CREATION_TEMPLATE, SYNC_TEMPLATE as SYNC, rule_diagnostics as diagnostics

ITEM = SYNC.format(what="`.item()`")


# ---- a name put into the metrics dict an Ignite Engine function returns ------------------------
def test_tpl102_a_value_put_into_the_dict_the_engine_function_returns_is_host_needed():
    """rules.md "A step body": a Python container that the step returns to its framework for
    logging is host-needed. The dcgan template of pytorch-ignite's code-generator takes the value
    into a name, builds the dict under another name and returns that name."""
    source = """
        import torch
        from ignite.engine import Engine

        def setup(model, loss_fn, optimizer, device):
            def train_function(engine, batch):
                real = batch[0].to(device, non_blocking=True)
                outputs = model(real)
                err = loss_fn(outputs)
                d_x = outputs.mean().item()
                err.backward()
                optimizer.step()
                metrics = {"epoch": engine.state.epoch, "err": err.item(), "D_x": d_x}
                engine.state.metrics = metrics
                return metrics

            return Engine(train_function)
        """
    assert diagnostics(source, "TPL102") == []


def test_tpl102_a_value_kept_beside_the_returned_dict_still_syncs():
    """Flagged twins: the name also goes into a dict that is not returned (kept on the engine's
    state only), and a dict built under a name that is never returned."""
    source = """
        import torch
        from ignite.engine import Engine

        def setup(model, loss_fn, optimizer, device, history):
            def train_function(engine, batch):
                real = batch[0].to(device, non_blocking=True)
                outputs = model(real)
                err = loss_fn(outputs)
                d_x = outputs.mean().item()
                err.backward()
                optimizer.step()
                kept = {"D_x": d_x}
                history.append(kept)
                return {"err": err.detach()}

            return Engine(train_function)
        """
    assert diagnostics(source, "TPL102") == [(10, 14, ITEM, None, None)]


# ---- sizes and slice bounds: a list of min/max, arithmetic in a slice, a narrow bound -----------
CONVERSION = SYNC.format(what="`int()` of a tensor")


def test_tpl102_sizes_through_a_min_list_slice_arithmetic_and_narrow_bounds_are_host_needed():
    """rules.md: shapes and sizes are host-needed. StyleTTS2 takes a crop length as an item of
    ``min([...])``, writes ``int(d[i])`` inside a slice's arithmetic and adds it to the running
    offset the next round slices with (``c += int(d[i])``); deepspeech's ``MaskConv``
    hands the length to ``narrow`` as its start and, through arithmetic, its length."""
    source = """
        import numpy as np
        import torch
        def train(model, loader, optimizer, max_len):
            for x, lengths in loader:
                y = model(x.cuda())
                y.sum().backward()
                optimizer.step()
                lengths = lengths.cuda()
                crop = min([int(lengths.min().item() / 2 - 1), max_len // 2])
                start = np.random.randint(0, 10)
                piece = y[:, start:start + crop]
                d = y.sum(-1)
                align = torch.zeros(4, 4)
                c = 0
                for i in range(4):
                    align[i, c:c + int(d[i])] = 1
                    c += int(d[i])
                mask = torch.zeros_like(y)
                for i, length in enumerate(lengths):
                    length = length.item()
                    if (mask[i].size(1) - length) > 0:
                        mask[i].narrow(1, length, mask[i].size(1) - length).fill_(1)
        """
    assert diagnostics(source, "TPL102") == []


def test_tpl102_the_same_values_read_as_numbers_still_sync():
    """Flagged twins: the min's item is only logged, the ``int()`` is added to a running number
    (no slice; also with ``+=``, read the next round only by a logger), and the length is only
    multiplied into a tensor (no bound)."""
    source = """
        import numpy as np
        import torch
        def train(model, loader, optimizer, max_len, log):
            for x, lengths in loader:
                y = model(x.cuda())
                y.sum().backward()
                optimizer.step()
                lengths = lengths.cuda()
                crop = min([int(lengths.min().item() / 2 - 1), max_len // 2])
                log(crop)
                d = y.sum(-1)
                c = 0
                for i in range(4):
                    c = c + int(d[i])
                total = 0
                for i in range(4):
                    log(total)
                    total += int(d[i])
                for i, length in enumerate(lengths):
                    length = length.item()
                    y = y * (y.size(1) - length)
        """
    assert diagnostics(source, "TPL102") == [
        (10, 24, ITEM, None, None), (15, 20, CONVERSION, None, None), (19, 21, CONVERSION, None, None),
        (21, 21, ITEM, None, None)]


# ---- a tensor made on the device of a host tensor is on the host -------------------------------
CPU_COPY = SYNC.format(what="`.cpu()`")


def test_tpl102_a_factory_on_a_loader_batch_s_own_device_stays_on_the_host():
    """rules.md "Where a value lives": a batch taken from a loader before any move is on the host,
    and so is a tensor made with ``device=`` that batch's ``.device`` (vec2text pads the labels so
    before listing them); host values carry through ``torch.cat``."""
    source = """
        import torch
        def generate(model, loader, pad_id, out):
            for inputs in loader:
                moved = {k: v.cuda() for k, v in inputs.items()}
                generated = model(**moved)
                ids = inputs["input_ids"]
                pad = torch.ones((ids.shape[0], 4), dtype=torch.long, device=ids.device) * pad_id
                ids = torch.cat((ids, pad), dim=1)
                out.extend(ids.cpu().tolist())
        """
    assert diagnostics(source, "TPL102") == []


def test_tpl102_a_factory_on_a_moved_tensor_s_device_is_on_the_device():
    """Flagged twin: the padding is made on the device of the generated (moved) ids (in a loop that
    steps an optimizer: in one that trains nothing the copy would be an evaluation result, R8)."""
    source = """
        import torch
        def generate(model, loader, pad_id, out):
            for inputs in loader:
                moved = {k: v.cuda() for k, v in inputs.items()}
                generated = model(**moved)
                ids = inputs["input_ids"].cuda()
                pad = torch.ones((ids.shape[0], 4), dtype=torch.long, device=ids.device) * pad_id
                ids = torch.cat((ids, pad), dim=1)
                out.extend(ids.cpu().tolist())
                optimizer.step()
        """
    assert diagnostics(source, "TPL102") == [(10, 19, CPU_COPY, None, None)]


# ---- TPL101: a list written in the source and repeated is literal data --------------------------
LEGACY_LONG = ("tensor is created on the CPU by the legacy constructor `torch.LongTensor(...)` and then copied "
               "to the device; create it there with `torch.tensor(..., dtype=torch.int64, device=...)`")
TENSOR = CPU_CREATION_TEMPLATE.format(factory="tensor")


def test_tpl101_a_repeated_list_literal_is_literal_data():
    """rules.md TPL101: ``tensor``/the legacy constructors given literal data (a list, a
    comprehension) then moved. ``[sos] * n`` is a list written in the source, repeated
    (StyleTTS2's ASR decoder); the fix of ``torch.tensor`` is safe as for a plain list."""
    source = """
        import torch
        def decode(x, n, sos):
            start = torch.LongTensor([sos] * n).to(x.device)
            zeros = torch.tensor([0.0] * n).cuda()
            return start, zeros
        """
    assert diagnostics(source, "TPL101") == [
        (4, 12, LEGACY_LONG, None, None),
        (5, 12, TENSOR, "safe", 'create the tensor with device="cuda"'),
    ]


def test_tpl101_a_repeated_variable_is_data_from_the_host():
    """Silent twin: ``ids * n`` repeats a value the source does not show (a list of the host, or a
    tensor times a number): ``tensor(x)`` of data that is not a literal starts on the host."""
    source = """
        import torch
        def decode(x, n, ids):
            return torch.tensor(ids * n).cuda(), torch.LongTensor(ids * n).to(x.device)
        """
    assert diagnostics(source, "TPL101") == []


# ---- the key of a lookup in a Python dict or list: decoding ids to text -------------------------
class_source = """
    import torch

    class Decoder:
        def __init__(self, labels):
            self.int_to_char = dict([(i, c) for (i, c) in enumerate(labels)])
            self.weights = torch.ones(len(labels), device="cuda")
            self.mixed = {}

        def reset(self):
            self.mixed = torch.zeros(3, device="cuda")

    class GreedyDecoder(Decoder):
        def process_string(self, sequence, size, counts):
            names = ["a", "b"]
            string = ""
            for i in range(size):
                string += self.int_to_char[sequence[i].item()]
                string += names[sequence[i].item()]
                counts[sequence[i].item()] += 1
                weight = self.weights[sequence[i].item()]
                other = self.mixed[sequence[i].item()]
            return string

    def validate(model, loader, labels, counts):
        decoder = GreedyDecoder(labels)
        for x, sizes in loader:
            out = model(x.cuda())
            decoder.process_string(out.argmax(-1)[0], 4, counts)
    """


def test_tpl102_the_key_of_a_python_dict_or_list_lookup_is_host_needed_and_other_indexes_sync():
    """deepspeech's greedy decoder: ``self.int_to_char[sequence[i].item()]`` reads the id on the
    host because the mapping is a Python dict (bound only to one in the file), as is
    ``names[...]`` of a list of the function: silent. Flagged twins, one per line: a Python
    container written to (``counts[...] += 1``, a per-step count the device could keep), a
    tensor attribute indexed, and an attribute the file also binds to a tensor."""
    called = ITEM + " (called every step from <string>:29)"
    assert diagnostics(class_source, "TPL102") == [
        (20, 19, called, None, None), (21, 34, called, None, None), (22, 31, called, None, None)]


# ---- torchmetrics states are tensors of the metric's device -------------------------------------
metric_source = """
    import torch
    import lightning.pytorch as pl
    from torchmetrics import Metric

    class CharErrorRate(Metric):
        def __init__(self):
            super().__init__()
            self.add_state("cer", default=torch.tensor(0), dist_reduce_fx="sum")
            self.add_state("n_chars", default=torch.tensor(0), dist_reduce_fx="sum")
            self.add_state("preds", default=[], dist_reduce_fx="cat")
            self.scale = 2.0

        def update(self, preds, targets):
            for pred, target in zip(preds, targets):
                self.cer += (pred != target).sum()

        def compute(self):
            cer = float(self.cer) * float(self.scale) / self.n_chars
            return cer.item() + float(len(self.preds))

    class Model(pl.LightningModule):
        def __init__(self):
            super().__init__()
            self.cer = CharErrorRate()

        def validation_step(self, batch, batch_idx):
            self.log("cer", self.cer.compute())
    """


def test_tpl102_float_of_a_torchmetrics_tensor_state_syncs_and_other_attributes_do_not():
    """deepspeech.pytorch: ``float(self.cer)`` in ``compute()``, called every validation step,
    reads a state registered with ``add_state(..., default=torch.tensor(0))``: a tensor of the
    metric, which moves with the model (and ``cer.item()`` of the quotient by another state). Silent
    twins on the same lines: an attribute bound to a number, and a list state (its length)."""
    chain = " (called every step from <string>:28 via validation_step)"
    conversion = SYNC.format(what="`float()` of a tensor") + chain
    assert diagnostics(metric_source, "TPL102") == [(19, 14, conversion, None, None), (20, 15, ITEM + chain, None, None)]


def test_tpl102_a_factory_on_the_device_of_a_tensor_copied_to_the_host_on_one_path_stays_a_device_tensor():
    """Flagged twin (yolov5's ``non_max_suppression``, a label of the framework holdout): the input
    goes to the host only under ``if mps:``; ``torch.zeros(..., device=x.device)`` follows ``x`` at
    run time, so only a loader batch's own device counts as the host."""
    source = """
        import torch
        def nms(prediction, labels, conf_thres):
            mps = "mps" in prediction.device.type
            if mps:
                prediction = prediction.cpu()
            for xi, x in enumerate(prediction):
                if labels:
                    v = torch.zeros((3, 4), device=x.device)
                    x = torch.cat((x, v), 0)
                i, j = (x[:, 5:] > conf_thres).nonzero(as_tuple=False).T
        def train(model, loader, opt):
            for x, y in loader:
                out = model(x.cuda())
                out.sum().backward()
                opt.step()
                nms(out, None, 0.5)
        """
    assert diagnostics(source, "TPL102") == [
        (11, 15, SYNC.format(what="`.nonzero()`") + " (called every step from <string>:17)", None, None)]
