"""Forms the tuned scores of holdout31-holdout34 still got wrong (2026-11-27, the fourteenth
session, before the first scores of holdout35-holdout38): each with its flagged and silent twins,
whole diagnostics."""


from torchperf_lint.engine import lint_source

from _diagnostics import SYNC_TEMPLATE as SYNC, found as _found


EVALUATION_IN_A_TRAINING_FUNCTION = """\
import numpy as np
import torch


def train_gmf(model, make_loader, test_set, optimizer):
    test_data = torch.utils.data.DataLoader(test_set, batch_size=2048)
    for epoch in range(15):
        model.train()
        train_data = make_loader()
        for iter_ in train_data:
            optimizer.zero_grad()
            loss = model.loss(iter_.cuda())
            loss.backward()
            optimizer.step()
            kept = loss.detach().cpu()
        retrieval = []
        model.eval()
        with torch.no_grad():
            for iter_ in test_data:
                scores = model(iter_.cuda())
                retrieval.append(scores.cpu().numpy())
                print(scores.max().item())
        print(np.vstack(retrieval))
"""


def test_an_evaluation_pass_beside_a_visible_training_loop_in_a_function_named_for_training():
    """recsys's ``train_gmf``: a function whose name says it trains holds the loop over epochs,
    and in it the training loop and, beside it, the evaluation pass. The training is in sight, so
    the evaluation pass trains nothing whatever the function is called: its copies to numpy are
    silent (R8, R36); its ``.item()`` (R7) and the training loop's copy stay flagged."""
    assert _found(EVALUATION_IN_A_TRAINING_FUNCTION) == [
        ("TPL102", 15, 19, SYNC.format(what="`.cpu()`")),
        ("TPL102", 22, 22, SYNC.format(what="`.item()`")),
    ]


PYTHON_INTS = """\
import torch


def train(model, loader, opt, decoder, names, counts):
    for x, y in loader:
        out = model(x.cuda())
        loss = out.mean()
        loss.backward()
        opt.step()
        hyp = decoder.generate(out, max_len=int(1.3 * out.max().item() + 5))
        k = int(out.sum().item())
        top = torch.topk(out, k)
        n = int(y.cuda().sum())
        print(n)
        m = int(out.argmax())
        counts[m] += 1
        c = 0
        c += int((out > 0).sum())
        idx = int(out.argmin().item())
        label = names[idx]
        z = int(out.min().item())
        if z > 3:
            pass
        w = max(1, int(out.std().item()))
        noise = torch.randint(0, 9, (w, 3))
        self_log = int(out.var().item())
        opt.log_dict({"n": self_log})
        t = int(out.median().item())
        total = t + 1
        return_value = int(out.mean().item())
"""


def test_a_python_int_the_host_needs_is_silent_and_one_read_as_a_metric_stays_flagged():
    """R38: an int made from a tensor is a count, an index, a size or an id. Handed to a call
    (``max_len=``, ``torch.topk``'s ``k``, a size in a tuple of sizes) or indexing a list, the host
    needs it (silent); printed, added up (``counts[m] += 1``, ``c += ...``), logged, only tested,
    or bound and never read, it is read as a metric (flagged, as before)."""
    int_of = SYNC.format(what="`int()` of a tensor")
    item = SYNC.format(what="`.item()`")
    assert _found(PYTHON_INTS) == [
        ("TPL102", 13, 12, int_of),
        ("TPL102", 15, 12, int_of),
        ("TPL102", 18, 13, int_of),
        ("TPL102", 21, 16, item),
        ("TPL102", 26, 23, item),
        ("TPL102", 28, 16, item),
        ("TPL102", 30, 27, item),
    ]


NONZERO_COUNTS = """\
import torch


def train(model, loader, opt, end_token_id):
    for x, y in loader:
        out = model(x.cuda())
        loss = out.mean()
        loss.backward()
        opt.step()
        finished = (out > 0).nonzero(as_tuple=False).view(-1)
        for j in finished:
            pass
        (nonzeros,) = (out == end_token_id).nonzero(as_tuple=True)
        if len(nonzeros) == 0:
            pass
        (kept,) = (out == 3).nonzero(as_tuple=True)
        out[kept] = 0
        rows = (out > 1).nonzero()
        out[rows] = 1
"""


def test_nonzero_indices_iterated_or_unpacked_and_counted_are_host_needed():
    """Beam search's ``for j in finished_hyp:`` runs once per row of the ``nonzero``, and
    ``(nonzeros,) = ....nonzero(as_tuple=True)`` then ``len(nonzeros)`` reads the count: the host
    needs the size (R3; joeynmt, PreSumm, alpaca_farm, LLaVA-RLHF). Indices that only index a
    tensor on the device, unpacked or not, stay flagged."""
    nonzero = SYNC.format(what="`.nonzero()`")
    assert _found(NONZERO_COUNTS) == [("TPL102", 16, 18, nonzero), ("TPL102", 18, 15, nonzero)]


PYTHON_LISTS = """\
import torch


def train(model, loader, opt, tokenizer, metrics):
    for x, y in loader:
        out = model(x.cuda())
        loss = out.mean()
        loss.backward()
        opt.step()
        tokens = tokenizer.convert_ids_to_tokens(out.argmax(-1).tolist())
        lengths = y.cuda().sum(-1).tolist()
        h = model.encode(out, lengths)
        metrics["loss"] = loss.tolist()
        per = out.mean(-1).tolist()
        pairs = [(a, b) for a, b in zip(per, per)]
        metrics.extend(out.tolist())
        print(out.tolist())
"""


def test_a_python_list_of_ids_or_lengths_handed_to_a_call_is_host_needed():
    """R38 for ``.tolist()``: a list read from a tensor and handed as it is to a call that neither
    shows, logs nor keeps it (a tokenizer, a helper taking lengths) is ids or sizes the host needs
    (silent); stored into a metrics dict, zipped, extended or printed it stays flagged."""
    tolist = SYNC.format(what="`.tolist()`")
    assert _found(PYTHON_LISTS) == [("TPL102", 13, 26, tolist), ("TPL102", 14, 14, tolist),
                                    ("TPL102", 16, 23, tolist), ("TPL102", 17, 14, tolist)]


SIZE_KEYWORDS = """\
import torch


def train(model, loader, opt, attn, meter, sched):
    for x, y in loader:
        out = model(x.cuda())
        lens = y.cuda().sum(-1)
        loss = out.mean()
        loss.backward()
        opt.step()
        o = attn(out, max_length_q=lens.max().item(), max_length_k=lens.max().item())
        max_len = lens.max().item()
        hyp = model.generate(out, max_len=max_len)
        meter.update(loss.item(), n=lens.sum().item())
        sched.step(loss.item())
        w = out.mean().item()
        z = out * w
"""


def test_an_item_handed_as_a_size_named_keyword_is_host_needed():
    """R38 for ``.item()``, a number that may be a float: handed, directly or through a name, as a
    keyword that names a size (``max_length_q=``, flash-attention's varlen lengths; ``max_len=``)
    the host reads it as one (silent). Handed to a metric's ``update`` (also as ``n=``), to a
    positional parameter, or used in arithmetic, it stays flagged."""
    item = SYNC.format(what="`.item()`")
    assert _found(SIZE_KEYWORDS) == [("TPL102", 14, 21, item), ("TPL102", 14, 36, item),
                                     ("TPL102", 15, 19, item), ("TPL102", 16, 12, item)]
    # a count a loss divides by is no size: HF's ``num_items_in_batch=`` takes a tensor as well
    # (accelerate's gradient-accumulation example, judged true)
    counted = SIZE_KEYWORDS.replace("max_len=max_len", "num_items_in_batch=max_len")
    assert ("TPL102", 12, 18, item) in _found(counted)


FACTORIES_THROUGH_FUNCTIONS_AND_NAMES = """\
import torch


def prompt_ids(input_ids):
    eos = torch.unsqueeze(torch.Tensor([29871]).long(), dim=0).to(input_ids.device)
    flat = torch.flatten(torch.zeros(2, 3)).cuda()
    return eos, flat


def total(losses):
    tot_loss: torch.Tensor = torch.tensor(0.0)
    for name, scaled in losses:
        tot_loss = tot_loss.to(scaled.device) + scaled
    return tot_loss


def kept(losses):
    base = torch.tensor(0.0)
    for name, scaled in losses:
        moved = base.to(scaled.device) + scaled
        print(base)
    return moved


def summed(scaled):
    acc = torch.zeros(3)
    acc = acc.to(scaled.device) + acc
    return acc
"""


def test_tpl101_a_factory_through_torch_functions_an_annotated_name_or_arithmetic_on_its_move():
    """openvla's ``torch.unsqueeze(torch.Tensor([29871]).long(), dim=0).to(ids.device)`` (the function
    spelling of a view keeps the tensor fresh), and lightning-pose's ``tot_loss: Tensor =
    torch.tensor(0.0)`` rebound to ``tot_loss.to(scaled.device) + scaled`` (the host tensor is never
    used again). Silent twins: a name read again on the host (``print(base)``), and a rebinding that
    reads the name a second time (``acc.to(d) + acc``)."""
    legacy = ("tensor is created on the CPU by the legacy constructor `torch.Tensor(...)` and then copied to "
              "the device; create it there with `torch.tensor(..., dtype=torch.get_default_dtype(), device=...)`")
    moved = ("tensor is created on the CPU and then copied to the device; pass `device=` to `torch.{name}(...)` "
             "to create it there (runtime_guard: device-native creation)")
    found = [(f.code, f.line, f.col, f.message, f.fix is None)
             for f in lint_source(FACTORIES_THROUGH_FUNCTIONS_AND_NAMES, "train.py", codes=("TPL101",))]
    assert found == [
        ("TPL101", 5, 26, legacy, True),
        ("TPL101", 6, 25, moved.format(name="zeros"), True),
        ("TPL101", 11, 29, moved.format(name="tensor"), True),
    ]


SELF_CALLED_FORWARD = """\
import torch
import pytorch_lightning as pl


class HubertModule(pl.LightningModule):
    def forward(self, **batch):
        loss = batch["x"].sum()
        self.log("loss_m", loss.detach().item())
        return {"loss": loss}

    def summarize(self):
        return self.metric.compute().item()

    def training_step(self, batch, batch_idx):
        output = self(**batch)
        self.log("train_loss", output["loss"])
        return output["loss"]
"""


def test_a_step_method_calling_self_is_not_followed_to_forward():
    """``output = self(**batch)`` in ``training_step`` runs the module's own ``forward``, and
    Fengshenbang's HuBERT logs each masked loss there with ``.item()``; but following ``self(...)``
    was measured twice on every framework set (2026-11-26 and 2026-11-27) and found 10 more
    pitfalls against 23 more false findings (host needs in model ``forward``s: ``extra_outputs``
    returned up to Lightning, prompt text tokenized on the host, ``pack_padded_sequence`` lengths
    several calls down). Precision first: not followed, so the sync in ``forward`` is silent."""
    assert _found(SELF_CALLED_FORWARD) == []
    # ... while the same forward called on an instance of the class from a loop is followed
    looped = SELF_CALLED_FORWARD + '''

def train(loader, opt):
    module = HubertModule()
    for batch in loader:
        out = module(**batch)
        out["loss"].backward()
        opt.step()
'''
    assert _found(looped) == [
        ("TPL102", 8, 27, SYNC.format(what="`.item()`") + " (called every step from train.py:23)")]


NUMPY_MASKS = """\
import numpy as np
import torch


def select_random_points(pr, gt):
    pred, gt = pr.data.cpu().numpy(), gt.data.cpu().numpy()
    error = np.zeros_like(pred)
    error[pred != gt] = 1
    return error


def keep_on_device(pr, gt):
    pred, gt = pr.data.cpu(), gt.data.cpu()
    error = torch.zeros_like(pred)
    error[pred != gt] = 1
    return error


def train(model, loader, opt):
    for x, y in loader:
        out = model(x.cuda())
        loss = out.mean()
        loss.backward()
        opt.step()
        pts = select_random_points(out, y.cuda())
        kept = keep_on_device(out, y.cuda())
"""


def test_a_copy_compared_into_a_mask_of_a_numpy_array_is_host_needed():
    """SAM-Med2D's ``error[pred != gt] = 1`` with ``error = np.zeros_like(pred)`` made after the
    copies: numpy indexes with the mask on the host, so ``gt``'s copy is a numpy consumer's (R3),
    as ``pred``'s is through ``np.zeros_like``. The twin that keeps the arrays in torch
    (``torch.zeros_like``) leaves both copies flagged."""
    called = SYNC.format(what="`.cpu()`") + " (called every step from train.py:26)"
    assert _found(NUMPY_MASKS) == [("TPL102", 13, 15, called), ("TPL102", 13, 30, called)]


PREPARED_AND_RESUMED = """\
import torch
from accelerate import Accelerator


def trainer(model, optimizer, make_loader, resume):
    accelerator = Accelerator()
    train_dataloader = make_loader()
    model, optimizer, train_dataloader = accelerator.prepare(model, optimizer, train_dataloader)
    skipped = None
    if resume:
        skipped = accelerator.skip_first_batches(train_dataloader, 10)
    for epoch in range(3):
        dataloader = train_dataloader if skipped is None else skipped
        total = 0
        for x, y, pad_mask in dataloader:
            logits = model(x, pad_mask)
            loss = logits.mean()
            total += (pad_mask == 0).sum().item()
            accelerator.backward(loss)
            optimizer.step()
        skipped = None
"""


def test_a_batch_of_a_prepared_loader_chosen_or_resumed_is_on_the_device():
    """AMPLIFY: ``train_dataloader`` (made by a project function elsewhere, a loader by its name)
    goes through ``accelerator.prepare``, is resumed with ``skip_first_batches`` and chosen with an
    ``if``/``else``: every way, its batches are on the device, so a count summed from one every step
    syncs. Unprepared, the same loop reads host batches (silent)."""
    assert _found(PREPARED_AND_RESUMED) == [("TPL102", 18, 21, SYNC.format(what="`.item()`"))]
    unprepared = PREPARED_AND_RESUMED.replace(
        "model, optimizer, train_dataloader = accelerator.prepare(model, optimizer, train_dataloader)",
        "model, optimizer = accelerator.prepare(model, optimizer)")
    assert _found(unprepared) == []


LAYERS = """\
import torch
from torch import nn
import pytorch_lightning as pl


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.lin = nn.Linear(d, d)

    def forward(self, x):
        if torch.isnan(x).any():
            raise ValueError("nan")
        return self.lin(x)


class Other(nn.Module):
    def forward(self, x):
        return x


class Model(pl.LightningModule):
    def __init__(self, d, n):
        super().__init__()
        self.layers = nn.ModuleList([Block(d) for _ in range(n)])

    def encode(self, x):
        for i, layer in enumerate(self.layers):
            x = layer(x)
        return x

    def training_step(self, batch, batch_idx):
        return self.encode(batch).mean()
"""


def test_a_layer_of_a_module_list_of_one_project_class_runs_its_forward():
    """LexaLCM: ``self.layers = nn.ModuleList([Block(d) for _ in range(n)])`` and ``for i, layer in
    enumerate(self.layers): x = layer(x)`` in a method ``training_step`` calls: each layer's
    ``forward`` runs every step, and its truth test syncs. A list of
    instances of different classes binds no class (silent)."""
    truth = SYNC.format(what="testing a tensor's truth")
    assert _found(LAYERS) == [
        ("TPL102", 12, 11, truth + " (called every step from train.py:33 via training_step \u2192 encode)")]
    mixed = LAYERS.replace("nn.ModuleList([Block(d) for _ in range(n)])", "nn.ModuleList([Block(d), Other()])")
    assert _found(mixed) == []


FUNCTION_ATTRIBUTES = """\
import torch
import pytorch_lightning as pl


def label_smoothed_nll_loss(lprobs, target, epsilon):
    valid_length = target.ne(-100).sum()
    return lprobs.sum() / valid_length.item()


def unused_loss(lprobs, target):
    return lprobs.sum() / target.sum().item()


class DeltaLM(pl.LightningModule):
    def __init__(self, loss_fn):
        super().__init__()
        self.loss_fn = label_smoothed_nll_loss
        self.given = loss_fn

    def training_step(self, batch, batch_idx):
        lprobs = self.model(batch["x"])
        extra = self.given(lprobs, batch["y"])
        return self.loss_fn(lprobs, batch["y"], 0.1) + extra
"""


def test_a_function_kept_on_the_instance_runs_when_the_step_calls_it():
    """Fengshenbang's DeltaLM: ``self.loss_fn = label_smoothed_nll_loss`` in ``__init__`` and
    ``self.loss_fn(...)`` in ``training_step``: the module's function runs every step and its
    ``.item()`` syncs. A function no step reaches (``unused_loss``) and one handed in as a
    parameter (``self.given``) are not followed."""
    assert _found(FUNCTION_ATTRIBUTES) == [
        ("TPL102", 7, 26, SYNC.format(what="`.item()`") + " (called every step from train.py:23 via training_step)")]


DATA_PARALLEL_SUBCLASS = """\
import torch
from torch import nn


class FocalLoss(nn.Module):
    def forward(self, pred, target):
        positive = target > 0
        if positive.sum() > 0:
            return (pred[positive] - target[positive]).abs().mean()
        return pred.sum() * 0


class CustomDataParallel(nn.DataParallel):
    def scatter(self, inputs, kwargs, device_ids):
        return inputs, kwargs


class ModelWithLoss(nn.Module):
    def __init__(self, model):
        super().__init__()
        self.criterion = FocalLoss()
        self.model = model

    def forward(self, x, y):
        return self.criterion(self.model(x), y)


def train(net, loader, opt, gpus):
    model = ModelWithLoss(net)
    if gpus > 1:
        model = CustomDataParallel(model, gpus)
    for x, y in loader:
        loss = model(x.cuda(), y.cuda())
        loss.backward()
        opt.step()
"""


def test_a_model_rewrapped_in_a_data_parallel_subclass_is_not_followed():
    """EfficientDet: ``model = CustomDataParallel(model, n)`` (a project subclass of
    ``nn.DataParallel``) under a setting runs the wrapped ``ModelWithLoss.forward``, whose loss
    module's truth test syncs every step; but following ``DataParallel`` wrappers was measured on
    the 39 sets (2026-11-27): 1 more pitfall, 9 more false findings. Precision first: a name
    rebound to a ``DataParallel`` wrapper binds the wrapper's class (silent). Unwrapped, the same
    model is followed."""
    assert _found(DATA_PARALLEL_SUBCLASS) == []
    truth = SYNC.format(what="testing a tensor's truth")
    unwrapped = DATA_PARALLEL_SUBCLASS.replace("        model = CustomDataParallel(model, gpus)\n", "        pass\n")
    assert _found(unwrapped) == [
        ("TPL102", 8, 11, truth + " (called every step from train.py:33 via forward)")]


CLOSED_BY_ARGUMENTS = """\
import torch


def handle_scaling(validation_dataset, output, labels):
    output = validation_dataset.inverse_scale(output.cpu())
    labels = validation_dataset.inverse_scale(labels.cpu())
    return output, labels


def compute_loss(labels, output, criterion, validation_dataset, probabilistic=None):
    if validation_dataset:
        output, labels = handle_scaling(validation_dataset, output, labels)
    if probabilistic is not None:
        print(output.mean().item())
    return criterion(output, labels)


def train(model, loader, opt, criterion):
    for x, y in loader:
        out = model(x.cuda())
        loss = compute_loss(y.cuda(), out, criterion, None)
        loss.backward()
        opt.step()


def validate(model, loader, criterion, dataset):
    with torch.no_grad():
        for x, y in loader:
            out = model(x.cuda())
            loss = compute_loss(y.cuda(), out, criterion, dataset, probabilistic=True)
            print(loss.item())
"""


def test_a_call_in_a_branch_the_per_step_arguments_close_is_not_per_step_there():
    """flow-forecast: the training loop calls ``compute_loss(..., None)``, and ``compute_loss``
    calls the scaling helper only under ``if validation_dataset:``: from the training loop the
    helper never runs; from the validation loop (autograd off) its copies are evaluation copies
    (R8): silent. Handed a dataset from the training loop too, the helper's copies are per-step
    syncs of training."""
    item = SYNC.format(what="`.item()`")
    cpu = SYNC.format(what="`.cpu()`")
    assert _found(CLOSED_BY_ARGUMENTS) == [
        ("TPL102", 14, 14, item + " (called every step from train.py:21)"), ("TPL102", 31, 18, item)]
    opened = CLOSED_BY_ARGUMENTS.replace("compute_loss(y.cuda(), out, criterion, None)",
                                         "compute_loss(y.cuda(), out, criterion, loader.dataset)")
    assert _found(opened)[:2] == [
        ("TPL102", 5, 46, cpu + " (called every step from train.py:21 via compute_loss)"),
        ("TPL102", 6, 46, cpu + " (called every step from train.py:21 via compute_loss)")]


HANDED_ON = """\
import torch


def handle_scaling(validation_dataset, output, labels):
    output = validation_dataset.inverse_scale(output.cpu())
    return output, labels


def compute_loss(labels, output, criterion, validation_dataset):
    if validation_dataset:
        output, labels = handle_scaling(validation_dataset, output, labels)
    return criterion(output, labels)


def multi_crit(crits, output, labels, valid=None):
    loss = 0.0
    for crit in crits:
        loss += compute_loss(labels, output, crit, valid)
    return loss


def train(model, loader, opt, crits):
    for x, y in loader:
        out = model(x.cuda())
        loss = multi_crit(crits, out, y.cuda(), None)
        loss.backward()
        opt.step()
"""


def test_a_literal_handed_on_through_a_parameter_closes_the_branch_too():
    """flow-forecast's ``multi_crit(criterion, output, labels, None)`` hands its ``valid`` on, as it
    is, to ``compute_loss``, whose ``if validation_dataset:`` then stays closed from the training
    loop (R40 through the index's ``argp``): the helper's copy is not per step. Handed a dataset,
    the branch opens and the copy syncs every step."""
    assert _found(HANDED_ON) == []
    opened = HANDED_ON.replace("multi_crit(crits, out, y.cuda(), None)", "multi_crit(crits, out, y.cuda(), loader.dataset)")
    assert _found(opened) == [
        ("TPL102", 5, 46, SYNC.format(what="`.cpu()`") + " (called every step from train.py:25 via multi_crit \u2192 compute_loss)")]
