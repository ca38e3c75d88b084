"""Forms the tuned scores of holdout35-holdout38 still got wrong (2026-11-27, the fifteenth
session, before the first scores of holdout39-holdout42): each with its flagged and silent twins,
whole diagnostics."""


from torchperf_lint.engine import lint_source

from _diagnostics import SYNC_TEMPLATE as SYNC, found as _found


TUPLE_OF_INDICES_COUNTED = """\
import torch


def starts_of(seq):
    stmps = (seq == 22550).nonzero(as_tuple=True)
    if len(stmps[0]) == len(seq):
        return stmps[1] + 2
    return None


def train(model, loader, opt):
    for batch in loader:
        ids = batch.cuda()
        starts = starts_of(ids)
        loss = model(ids, starts).mean()
        loss.backward()
        opt.step()
"""


def test_one_tensor_of_a_nonzero_tuple_counted_is_a_size_the_host_needs():
    """rlhf-length-biases' ``get_starts``: ``nonzero(as_tuple=True)`` whose first tensor's length
    the host compares: the sync is the count of the rows (R3, a size), silent; the same tuple
    whose tensor is only computed with stays flagged, in the helper called every step."""
    assert _found(TUPLE_OF_INDICES_COUNTED) == []
    used = TUPLE_OF_INDICES_COUNTED.replace("if len(stmps[0]) == len(seq):", "if seq.dim() == 2:")
    assert _found(used) == [
        ("TPL102", 5, 12, SYNC.format(what="`.nonzero()`")
         + " (called every step from train.py:14)"),
    ]


COPIED_IN_A_BRANCH = """\
import torch


def score(model, loader, out_file, chunked, copy):
    with torch.no_grad():
        for batch in loader:
            output_pos = model(batch.cuda())
            if chunked:
                output_pos, chunk_scores = output_pos
                chunk_scores = chunk_scores.cpu()
            ranking = output_pos.cpu()
            for i in range(ranking.shape[0]):
                if chunked:
                    out_file.write(str(float(ranking[i])) + " ".join([str(float(s)) for s in chunk_scores[i]]))
"""


def test_a_name_bound_again_in_the_same_branch_reaches_only_as_bound_last():
    """matchmaker's teacher scorer: ``if chunked:`` unpacks the model's output and copies the chunk
    scores to the host in the same branch; a later ``if chunked:`` reads them: only the copy can
    reach it, so ``float()`` of its items waits for nothing (rules.md 'Where a value lives').
    Copied only under a further test, the device tensor of the unpacking may reach it: flagged."""
    assert _found(COPIED_IN_A_BRANCH) == []
    nested = COPIED_IN_A_BRANCH.replace("                chunk_scores = chunk_scores.cpu()",
                                        "                if copy:\n                    chunk_scores = chunk_scores.cpu()")
    assert _found(nested) == [("TPL102", 15, 74, SYNC.format(what="`float()` of a tensor"))]


SETTINGS_MAPPING = """\
import argparse
import torch


def main():
    args = argparse.ArgumentParser().parse_args()
    args.mapping_act2v = {i: i // 3 for i in range(300)}
    train(args, *build(args))


def train(args, model, loader, criterion, optimizer):
    for images, target in loader:
        images, target = images.cuda(), target.cuda()
        output = model(images)
        target_to_verb = torch.tensor([args.mapping_act2v[a] for a in target.tolist()]).cuda()
        loss = criterion(output, target_to_verb)
        loss.backward()
        optimizer.step()
"""


def test_ids_looked_up_in_a_dict_kept_on_the_settings_namespace_are_host_needed():
    """LaViLa: ``args.mapping_act2v`` is only ever a dict the file builds; its keys must be Python
    ints, so ``target.tolist()`` iterated to look them up is host-needed (R31, a lookup key).
    The namespace attribute bound to something else as well is unknown: flagged."""
    assert _found(SETTINGS_MAPPING) == []
    unknown = SETTINGS_MAPPING.replace("    train(args, *build(args))",
                                       "    args.mapping_act2v = load_table(args)\n    train(args, *build(args))")
    assert _found(unknown) == [("TPL102", 16, 70, SYNC.format(what="`.tolist()`"))]


ONE_HOT_ON_THE_HOST = """\
import numpy as np
import torch


def to_one_hot(y, classes):
    c = np.zeros(shape=[len(y), classes], dtype="float32")
    c[range(len(y)), y] = 1.
    return torch.from_numpy(c)


def train(model, loader, opt):
    for x, y in loader:
        x, y = x.cuda(), y.cuda()
        y_hat = model(x)
        targets = to_one_hot(y.cpu(), y_hat.size(1)).to(y.device)
        loss = ((y_hat - targets) ** 2).mean()
        loss.backward()
        opt.step()
"""


def test_a_copy_that_indexes_an_array_numpy_made_in_the_callee_is_host_needed():
    """continual-learning's ``lf.to_one_hot(y.cpu(), n)``: the callee writes into a numpy array
    at the indices it is handed (R3: a numpy consumer, across the call); silent. The same helper
    writing into a torch tensor leaves the copy flagged."""
    assert _found(ONE_HOT_ON_THE_HOST) == []
    in_torch = ONE_HOT_ON_THE_HOST.replace('np.zeros(shape=[len(y), classes], dtype="float32")',
                                           "torch.zeros(len(y), classes)").replace(
        "return torch.from_numpy(c)", "return c")
    assert _found(in_torch) == [("TPL102", 15, 29, SYNC.format(what="`.cpu()`"))]


EVALUATED_ON_THE_TRAINING_SET = """\
import torch


def train_evaluate(model, train_loader):
    model.eval()
    correct = 0
    for data, target in train_loader:
        data, target = data.cuda(), target.cuda()
        output = model(data)
        pred = output.max(1, keepdim=True)[1]
        correct += pred.eq(target.view_as(pred)).cpu().sum()
    print(correct)
"""


def test_a_function_named_for_evaluating_on_the_training_set_trains_nothing():
    """kd-pytorch's ``train_evaluate``: the name ends in what it does (evaluate), its loop trains
    nothing: its copy is an evaluation copy (R8), silent. Named ``train_epoch`` or
    ``train_and_evaluate``, the name says it may train: flagged."""
    assert _found(EVALUATED_ON_THE_TRAINING_SET) == []
    for name in ("train_epoch", "train_and_evaluate"):
        renamed = EVALUATED_ON_THE_TRAINING_SET.replace("def train_evaluate(", f"def {name}(")
        assert _found(renamed) == [("TPL102", 11, 19, SYNC.format(what="`.cpu()`"))], name


DEVICE_METHOD = """\
import torch


class Learner(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(3, 3)

    def _device(self):
        return next(self.parameters()).device

    def penalty(self, a):
        return torch.eye(a.shape[0]).to(self._device()) * 2
"""


def test_a_move_to_what_a_device_named_method_returns_is_a_move_to_the_device():
    """continual-learning: ``.to(self._device())``, where ``_device`` returns where the parameters
    live, moves the factory as ``.to(self.device)`` does (14 labels of holdout41). The fix passes
    the same call as ``device=``; the fixed code computes the same tensor, and fixing twice
    changes nothing. A method named otherwise (``self._target()``) is not known to be a device."""
    from torchperf_lint.catalog import SAFE
    from torchperf_lint.engine import fix_source

    found = [(f.code, f.line, f.col, f.message, f.fix.applicability, f.fix.description)
             for f in lint_source(DEVICE_METHOD, "learner.py", codes=("TPL101",))]
    assert found == [("TPL101", 13, 15,
                      "tensor is created on the CPU and then copied to the device; pass `device=` to "
                      "`torch.eye(...)` to create it there (runtime_guard: device-native creation)",
                      SAFE, "create the tensor with device=self._device()")]
    fixed, count = fix_source(DEVICE_METHOD, codes=["TPL101"])
    assert count == 1 and "torch.eye(a.shape[0], device=self._device()) * 2" in fixed
    assert fix_source(fixed, codes=["TPL101"]) == (fixed, 0)
    import torch
    before, after = {}, {}
    exec(compile(DEVICE_METHOD, "before", "exec"), before)
    exec(compile(fixed, "after", "exec"), after)
    a = torch.ones(4, 2)
    assert torch.equal(before["Learner"]().penalty(a), after["Learner"]().penalty(a))
    other = DEVICE_METHOD.replace("self._device()", "self._target()").replace("def _device(", "def _target(")
    assert lint_source(other, "learner.py", codes=("TPL101",)) == []


TYPE_AS = """\
import torch


def step(model, batch):
    X = unpack(batch)
    t = torch.rand(X.shape[0]).type_as(X)
    vt = flow_of(t, X)
    loss = torch.mean(t[:, None] * (vt - X) ** 2)
    if not torch.isfinite(loss):
        raise ValueError("Loss Not Finite")
    return loss


def train(model, loader, opt):
    for X in loader:
        loss = step(model, X.cuda())
        loss.backward()
        opt.step()
"""


def test_type_as_puts_the_factory_where_its_argument_lives():
    """cfm's ``t = torch.rand(n).type_as(X)``: ``type_as`` casts and moves to ``X``'s device; a
    value made with it is no host value, and the NaN stop of the training step that tests the
    loss is flagged (R24). ``.type_as`` of a CPU tensor stays on the host: silent."""
    assert _found(TYPE_AS) == [("TPL102", 9, 7, SYNC.format(what="testing a tensor's truth")
                                + " (called every step from train.py:16)")]
    host = TYPE_AS.replace("type_as(X)", "type_as(torch.zeros(1))").replace("t[:, None] * (vt - X) ** 2", "t")
    assert _found(host) == []


DEFAULTED_SCHEDULER = """\
import torch


class LinearAlpha:
    def alpha(self, i):
        i_t = torch.as_tensor(i, device=i.device if isinstance(i, torch.Tensor) else None)
        if not torch.all((0.0 <= i_t) & (i_t <= 1.0)):
            raise ValueError("not in [0, 1]")
        out = 1 - i_t
        return out.item() if isinstance(i, float) else out


class Trainer:
    def __init__(self, model, scheduler=None):
        self.model = model
        self.scheduler = scheduler if scheduler is not None else LinearAlpha()

    def loss(self, x):
        t = torch.rand(x.shape[0], device=x.device)
        return (self.scheduler.alpha(t) * self.model(x)).mean()


def train(model, loader, opt):
    trainer = Trainer(model)
    for x in loader:
        loss = trainer.loss(x.cuda())
        loss.backward()
        opt.step()
"""


def test_an_attribute_bound_to_a_default_instance_and_a_number_branch():
    """dllm's trainers: ``self.scheduler = scheduler if scheduler is not None else
    LinearAlphaScheduler()`` is an instance of that class, so its range check runs every step
    (flagged, with the chain); ``out.item() if isinstance(i, float) else out`` runs only when the
    caller hands a Python number, which the step never does: silent. A default made by an
    unknown call is not followed; a branch on anything but a number type stays flagged."""
    chain = " (called every step from train.py:26 via loss)"
    assert _found(DEFAULTED_SCHEDULER) == [("TPL102", 7, 11, SYNC.format(what="testing a tensor's truth") + chain)]
    unknown = DEFAULTED_SCHEDULER.replace("else LinearAlpha()", "else make_default()")
    assert _found(unknown) == []
    flag = DEFAULTED_SCHEDULER.replace("if isinstance(i, float) else out", "if i.dim() == 0 else out")
    assert _found(flag) == [("TPL102", 7, 11, SYNC.format(what="testing a tensor's truth") + chain),
                            ("TPL102", 10, 15, SYNC.format(what="`.item()`") + chain)]


def test_torch_reached_through_its_own_attribute_is_torch():
    """flow_matching's ``torch.torch.rand(n).to(device)``: ``torch.torch`` is the module itself,
    so the factory is torch's, moved after it is made (holdout39's two labels). The fix is
    offered as unsafe: a random factory on the device draws from another generator."""
    from torchperf_lint.catalog import UNSAFE

    source = "import torch\n\n\ndef f(samples, device):\n    return torch.torch.rand(samples.shape[0]).to(device)\n"
    found = [(f.code, f.line, f.col, f.message, f.fix.applicability, f.fix.description)
             for f in lint_source(source, "train.py", codes=("TPL101",))]
    assert found == [("TPL101", 5, 11,
                      "tensor is created on the CPU and then copied to the device; pass `device=` to "
                      "`torch.rand(...)` to create it there (runtime_guard: device-native creation)",
                      UNSAFE, "create the tensor with device=device")]
    assert lint_source(source.replace("torch.torch.rand", "torch.other.rand"), "train.py", codes=("TPL101",)) == []


TOTAL_READ_AFTER_THE_LOOP = """\
import pickle
import numpy as np
import torch


def all_gather_list(data):
    return [pickle.loads(pickle.dumps(data))]


def forward_step(cfg, model, batch):
    return model(batch)


@torch.no_grad()
def validate(model, val_loaders, cfg):
    mlm_loss = 0
    for name, val_loader in val_loaders.items():
        for step, batch in enumerate(val_loader):
            outputs = forward_step(cfg, model, batch)
            mlm_loss += outputs["mlm_loss"].sum().item()
    return sum(all_gather_list(mlm_loss))


def train(model, loader, opt):
    total = 0
    for x, y in loader:
        loss = model(x.cuda(), y.cuda())
        loss.backward()
        opt.step()
        total += loss.detach().cpu().numpy()
    return np.exp(total)
"""


def test_running_totals_handed_to_a_host_library_only_after_the_loop_are_per_step_syncs():
    """R22: a total read only after the loop needs one sync there. ClipBERT's validation sums
    ``.item()``s per batch inside ``for name, val_loader in val_loaders.items():`` (a loop that
    takes loaders, once per loader) and pickles them with ``all_gather_list`` after the loops; a
    training loop's ``total += loss.cpu().numpy()`` goes to numpy only at the end. Both flagged.
    Handed to the host library in the loop, every step: host-needed, silent."""
    assert _found(TOTAL_READ_AFTER_THE_LOOP) == [
        ("TPL102", 20, 24, SYNC.format(what="`.item()`")),
        ("TPL102", 30, 17, SYNC.format(what="`.cpu()`")),
    ]
    each_step = TOTAL_READ_AFTER_THE_LOOP.replace(
        '            mlm_loss += outputs["mlm_loss"].sum().item()\n',
        '            mlm_loss += outputs["mlm_loss"].sum().item()\n            all_gather_list(mlm_loss)\n').replace(
        "        total += loss.detach().cpu().numpy()\n",
        "        total += loss.detach().cpu().numpy()\n        print(np.exp(total))\n")
    assert _found(each_step) == []


NUMPY_METER = """\
import numpy as np
import torch


class AverageMeter:
    def __init__(self):
        self.sum = 0
        self.count = 0

    def update(self, val, weight=1):
        self.sum = np.add(self.sum, np.multiply(val, weight))
        self.count = self.count + weight


def validate(model, val_loader, criterion):
    meter = AverageMeter()
    with torch.no_grad():
        for data, target in val_loader:
            output = model(data.cuda())
            loss = criterion(output, target.cuda())
            meter.update(loss.item())
    return meter.sum / meter.count
"""


def test_a_meter_that_adds_into_its_state_with_numpy_is_a_running_total():
    """CCT's ``AverageMeter.update``: ``self.sum = np.add(self.sum, np.multiply(val, w))`` only adds
    the value into the meter's state, read after the loop: a running total (R22), not a numpy
    consumer that needs the number every step (R3). The per-batch ``.item()`` stays flagged
    (R7). A method that computes with the value and gives it back (``return np.clip(val, 0,
    1)``) needs it on the host: silent."""
    assert _found(NUMPY_METER) == [("TPL102", 21, 25, SYNC.format(what="`.item()`"))]
    computes = NUMPY_METER.replace("        self.sum = np.add(self.sum, np.multiply(val, weight))\n",
                                   "        self.sum = self.sum + val\n        return np.clip(val, 0, 1)\n")
    assert _found(computes) == []
