"""Forms read in the twenty-fourth session (2026-11-28): each with its twin, whole diagnostics."""

from _diagnostics import CPU_SYNC, EMPTY_CACHE, ITEM_SYNC, all_diagnostics, found

# -- TPL101: a legacy constructor handed a name called a size, bound to arithmetic ----------------

LEGACY_BUFFER = """\
import torch


class Buffer(torch.nn.Module):
    def __init__(self, args, input_size):
        super().__init__()
        economy = 4
        {binding}
        bx = torch.FloatTensor(buffer_size, *input_size).fill_(0)
        by = torch.LongTensor(buffer_size).fill_(0)
        if args.cuda:
            bx = bx.to(args.device)
            by = by.to(args.device)
        self.register_buffer("bx", bx)
        self.register_buffer("by", by)
"""
LEGACY = ("tensor is created on the CPU by the legacy constructor `torch.{name}(...)` and then copied to the "
          "device; create it there with `torch.empty(..., dtype=torch.{dtype}, device=...)`")
FLOAT_BUFFER = ("TPL101", 9, 13, LEGACY.format(name="FloatTensor", dtype="float32"), None)
LONG_BUFFER = ("TPL101", 10, 13, LEGACY.format(name="LongTensor", dtype="int64"), None)


def _diagnostics(source):
    return [(d[0], d[1], d[2], d[3], d[4]) for d in all_diagnostics(source, "TPL101")]


def test_a_legacy_constructor_handed_a_size_named_name_bound_to_arithmetic_is_sized():
    """MIR's replay buffer (holdout118): ``buffer_size = economy * args.mem_size`` then
    ``torch.LongTensor(buffer_size).fill_(0)`` moved under ``if args.cuda:``; one argument that is a
    number of elements, not a list of data (the FloatTensor beside it has several: sizes anyway)."""
    for binding in ("buffer_size = economy * args.mem_size", "buffer_size = (args.mem_size // 2 + 1) * economy",
                    "buffer_size = len(args.classes) * economy"):
        source = LEGACY_BUFFER.replace("{binding}", binding)
        assert _diagnostics(source) == [FLOAT_BUFFER, LONG_BUFFER], binding


def test_a_list_repeated_or_a_name_not_called_a_size_stays_unknown():
    """``[0] * n`` is data (the constructor makes a tensor of those numbers); a name that does not say
    it is a size (``rows = a * b``) is not read as one."""
    source = LEGACY_BUFFER.replace("{binding}", "buffer_size = [0] * args.mem_size")
    assert _diagnostics(source) == [FLOAT_BUFFER]  # (several arguments: sizes whatever they are)
    source = LEGACY_BUFFER.replace("{binding}", "rows = economy * args.mem_size").replace(
        "LongTensor(buffer_size)", "LongTensor(rows)").replace("FloatTensor(buffer_size, *input_size)",
                                                               "FloatTensor(rows, *input_size)")
    assert _diagnostics(source) == [FLOAT_BUFFER]


# -- TPL102: a name one branch binds to a CPU placeholder and another to a value that may be on the device

PLACEHOLDER_BRANCHES = """\
import torch
from helpers import mi_first_forward

device = torch.device("cuda")
for epoch in range(10):
    average = 0
    for i, (mels, lf0) in enumerate(dataloader, 1):
        mels = mels.to(device)
        if cfg.use_mi:
            lld_loss = mi_first_forward(mels, encoder, optimizer)
        else:
            lld_loss = {placeholder}
        loss = model(mels)
        loss.backward()
        optimizer.step()
        average += (lld_loss.item() - average) / i
"""
PLACEHOLDER_SYNC = [("TPL102", 16, 20, ITEM_SYNC)]


def test_a_cpu_placeholder_on_one_branch_leaves_the_other_branch_s_device_value_a_sync():
    """VQMIVC (holdout114): ``lld_cs_loss`` comes from ``mi_first_forward(...)`` (the mutual
    information step, a loss on the device) when MI is on, else ``torch.tensor(0.)``; its ``.item()``
    every step waits for the device whenever MI is on. A value of unknown origin counts as possibly on
    the device (rules.md "Where a value lives"), whatever the other branch binds (R67)."""
    for placeholder in ("torch.tensor(0.)", "torch.zeros(1)", "np.float32(0.0)"):
        source = PLACEHOLDER_BRANCHES.replace("{placeholder}", placeholder)
        assert found(source) == PLACEHOLDER_SYNC, placeholder


def test_host_values_on_every_branch_stay_host():
    """The twin: both branches known to leave a host value (a CPU tensor, a copy): the ``.item()`` of
    the copy waits for nothing (the copy itself does, and is reported)."""
    source = PLACEHOLDER_BRANCHES.replace("mi_first_forward(mels, encoder, optimizer)",
                                          "mi_first_forward(mels, encoder, optimizer).cpu()")
    for placeholder in ("torch.tensor(0.)", "torch.zeros(1)"):
        assert found(source.replace("{placeholder}", placeholder)) == [("TPL102", 10, 23, CPU_SYNC)], placeholder


# -- TPL101: a factory bound to a ``self.`` attribute and rebound to its own move -------------------

ATTRIBUTE_MOVED = """\
import torch
import torch.nn as nn


class BaseModel(nn.Module):
    def __init__(self, args):
        super().__init__()
        if args.c is not None:
            self.c = torch.tensor([args.c])
            {between}
            if not args.cuda == -1:
                self.c = self.c.to(args.device)
        else:
            self.c = nn.Parameter(torch.ones(1))
"""
ATTRIBUTE_REPORT = ("TPL101", 9, 21, "tensor is created on the CPU and then copied to the device; pass `device=` "
                    "to `torch.tensor(...)` to create it there (runtime_guard: device-native creation)", None)


def test_a_factory_bound_to_a_self_attribute_then_rebound_to_its_move_is_reported():
    """hgcn's ``BaseModel.__init__`` (holdout120): ``self.c = torch.tensor([args.c])`` then, under a
    setting, ``self.c = self.c.to(args.device)``: the plain name's form (R68), at the factory, no fix
    (creation and move are apart)."""
    for between in ("pass", "self.name = args.manifold", "print(args.c)"):
        assert _diagnostics(ATTRIBUTE_MOVED.replace("{between}", between)) == [ATTRIBUTE_REPORT], between


def test_a_self_attribute_read_or_self_handed_on_before_the_move_is_not_reported():
    """The twins: the host tensor read (``self.c * 2``), a method of ``self`` or a helper given ``self``
    between binding and move (either may read ``self.c`` on the host), the move kept under another
    attribute (the host tensor stays as ``self.c``)."""
    for between in ("self.scale = self.c * 2", "self.reset_parameters()", "init_curvature(self)"):
        assert _diagnostics(ATTRIBUTE_MOVED.replace("{between}", between)) == [], between
    kept = ATTRIBUTE_MOVED.replace("{between}", "pass").replace("self.c = self.c.to(", "self.c_dev = self.c.to(")
    assert _diagnostics(kept) == []


# -- TPL102: a counter test of a loop of model calls inside a framework step method ----------------

PERMUTATION_STEP = """\
import torch
import torch.nn as nn
import torch.nn.functional as F
import pytorch_lightning as pl


class System(pl.LightningModule):
    def __init__(self, dim, classes):
        super().__init__()
        self.head = nn.Linear(dim, classes)

    def training_step(self, batch, batch_idx):
        images, tgt = batch
        loss = 0
        n = (tgt != 0).sum().item()
        for i, perm in enumerate(self.perms):
            logits = self.head(images[:, perm])
            loss += n * F.cross_entropy(logits, tgt)
            {update}
            if i == 1:
                tgt = torch.where(tgt == 2, 0, tgt)
                n = (tgt != 0).sum().item()
        return loss
"""


def test_a_counter_test_of_a_loop_of_model_calls_in_a_step_method_holds_every_step():
    """CLIP4STR's ``training_step`` (holdout122): the permutation loop calls the model built in
    ``__init__`` and, under ``if i == 1:``, recounts the target tokens with ``.item()``. Lightning
    runs the whole loop in every step, so its second pass comes every step: no interval (R69)."""
    source = PERMUTATION_STEP.replace("{update}", "pass")
    assert found(source) == [("TPL102", 15, 12, ITEM_SYNC), ("TPL102", 22, 20, ITEM_SYNC)]


def test_a_counter_test_of_a_loop_that_updates_each_pass_is_an_interval():
    """The twin: a loop whose passes each run an update (manual optimisation, one step a pass) picks
    one step with ``if i == 1:``, as rl4co's search iterations do."""
    for update in ("self.manual_backward(loss)", "loss.backward()\n            self.opt.step()"):
        source = PERMUTATION_STEP.replace("{update}", update)
        assert found(source) == [("TPL102", 15, 12, ITEM_SYNC)], update


# -- An item loop split among processes (``idx % world_size != rank``) is no interval --------------

SHARDED_VALIDATION = """\
import torch


def dist_validation(model, dataloader, rank, world_size):
    for idx, val_data in enumerate(dataloader):
        if {test}:
            continue
        lq = val_data["lq"].cuda()
        with torch.no_grad():
            output = model(lq)
        del lq, output
        torch.cuda.empty_cache()
"""


def test_a_share_of_the_items_per_process_is_every_item_of_the_share():
    """BasicSR's ``dist_validation`` (NAFNet, holdout121): ``if idx % world_size != rank: continue``
    gives each process its share of the validation items; every item of the share then frees the
    cache (R70). ``%`` elsewhere still makes an interval."""
    for test in ("idx % world_size != rank", "rank != idx % world_size", "idx % self.world_size != self.rank",
                 "idx % num_replicas != local_rank"):
        source = SHARDED_VALIDATION.replace("{test}", test)
        assert found(source, codes=("TPL103",)) == [("TPL103", 12, 8, EMPTY_CACHE)], test


def test_a_modulo_not_compared_with_a_rank_is_still_an_interval():
    for test in ("idx % log_every != 0", "idx % world_size != 0", "idx % 10 != rank"):
        source = SHARDED_VALIDATION.replace("{test}", test)
        assert found(source, codes=("TPL103",)) == [], test


# -- TPL102: the key of a read from a list of names is needed on the host -------------------------

NAMES_LOOKUP = """\
import torch


def eval_links(model, loader, {container}):
    links = []
    for batch in loader:
        labels = model(batch["x"].cuda()).argmax(-1)
        for i in range(labels.shape[0]):
            if {container}[labels[i].item()] != "O":
                links.append(i)
    return links
"""


def test_an_item_that_keys_a_list_of_names_is_host_needed():
    """GeoLayoutLM's ``bio_class_names[bio_labels[...].item()] != "O"`` (holdout122): a list of names
    holds strings and takes a Python number; the host must have it (R47.3 by the container's name, R71)."""
    for container in ("bio_class_names", "class_names", "filenames", "names"):
        assert found(NAMES_LOOKUP.replace("{container}", container)) == [], container


def test_an_item_that_keys_a_container_of_unknown_kind_still_waits():
    source = NAMES_LOOKUP.replace("{container}", "scores").replace('!= "O"', "> 0")
    assert found(source) == [("TPL102", 9, 22, ITEM_SYNC)]
