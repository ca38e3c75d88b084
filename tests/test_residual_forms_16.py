"""Forms the first scores of holdout43-holdout46 got wrong (2026-11-27, the sixteenth session):
each with its flagged twin, whole diagnostics."""

from torchperf_lint.engine import lint_source

from _diagnostics import SYNC_TEMPLATE as SYNC, found as _found


VALIDATION_PASS = """\
import torch


def train(net, optimizer, train_loader, val_loader, device, epochs):
    for epoch in range(epochs):
        for x, y in train_loader:
            optimizer.zero_grad()
            loss = net(x.to(device)).sum()
            loss.backward()
            optimizer.step()
        val_result = []
        for x, y in val_loader:
            info = {}
            optimizer.zero_grad()
            out = net(x.to(device))
            info["pred"] = out.cpu().detach().numpy().tolist()
            val_result.append(info)
            {update}
"""


def test_a_validation_pass_that_only_clears_gradients_trains_nothing():
    """alignn's validation loop, copied from its training loop, keeps ``optimizer.zero_grad()``:
    clearing gradients runs no update, so the pass beside the training loop trains nothing and
    its kept predictions are evaluation copies (R8, R36)."""
    assert _found(VALIDATION_PASS.replace("{update}", "")) == []


def test_the_same_pass_stepping_the_optimizer_trains():
    source = VALIDATION_PASS.replace("{update}", "optimizer.step()")
    assert _found(source) == [("TPL102", 16, 27, SYNC.format(what="`.cpu()`"))]


LAST_AND_CHOSEN_STEPS = """\
import torch


class Timer:
    def __init__(self, device):
        self.totals = {"step": torch.zeros((), device=device)}

    def aggregated(self):
        return {k: v.item() for k, v in self.totals.items()}


def train(model, loader, opt, config, log_steps, device):
    timer = Timer(device)
    for step, batch in enumerate(loader):
        loss = model(batch.to(device)).mean()
        loss.backward()
        opt.step()
        is_last_step = step + 1 == config.steps
        if is_last_step:
            print(timer.aggregated())
        if step + 1 {chosen} log_steps:
            print(loss.item())
        if step - 1 == len(loader):
            print(loss.item())
"""


def test_a_shifted_counter_equal_to_a_bound_or_in_chosen_steps_is_an_interval():
    """lightly-train: ``is_last_val_step = val_step + 1 == len(val_dataloader)`` guards the timer's
    aggregation (a callee's ``.item()`` comprehension), ``step + 1 in log_steps`` the logging:
    rules.md "An interval" (a test on the step counter) picks one or a few steps."""
    assert _found(LAST_AND_CHOSEN_STEPS.replace("{chosen}", "in")) == []


def test_every_step_but_the_chosen_ones_still_syncs():
    assert _found(LAST_AND_CHOSEN_STEPS.replace("{chosen}", "not in")) == [
        ("TPL102", 22, 18, SYNC.format(what="`.item()`"))]


def test_a_counter_shifted_by_another_counter_is_no_interval():
    """``step + epoch == n`` is no counter a number away: no interval, the sync stays flagged."""
    source = LAST_AND_CHOSEN_STEPS.replace("{chosen}", "in").replace("step - 1 == len(loader)",
                                                                     "step + config.epoch == config.steps")
    assert _found(source) == [("TPL102", 24, 18, SYNC.format(what="`.item()`"))]


MOLECULE = """\
import torch
from rdkit import Chem


def make(atom_types, bonds, positions, decoder, kept):
    mol = Chem.RWMol()
    for atom in atom_types:
        mol.AddAtom(Chem.Atom(decoder[atom.item()]))
    for bond in bonds:
        {bond_use}(bond[0].item(), bond[1].item())
    return mol


def train(model, loader, opt, decoder, kept):
    for x in loader:
        out = model(x.cuda())
        out.mean().backward()
        opt.step()
        make(out.argmax(-1), out.long(), out, decoder, kept)
"""


def test_items_an_rdkit_call_or_an_rdkit_object_is_handed_are_host_needed():
    """bio-diffusion's ``make_mol_edm``: ``Chem.Atom(decoder[atom.item()])`` (an item that picks
    what RDKit is handed) and ``mol.AddBond(i.item(), j.item())`` on ``mol = Chem.RWMol()``: RDKit
    is a host library like numpy (R3)."""
    assert _found(MOLECULE.replace("{bond_use}", "mol.AddBond")) == []


def test_the_same_items_kept_in_a_python_list_still_sync():
    item = SYNC.format(what="`.item()`") + " (called every step from train.py:19)"
    assert _found(MOLECULE.replace("{bond_use}", "kept.insert")) == [
        ("TPL102", 10, 20, item), ("TPL102", 10, 36, item)]


LIST_READ_AT_AN_INTERVAL = """\
import numpy as np
import torch


def train(model, loader, opt, args):
    loss_train = []
    global_step = 0
    for batch in loader:
        loss = model(batch.cuda()).mean()
        loss_train.append(loss.item())
        loss.backward()
        opt.step()
        global_step += 1
        val_cond = global_step % args.eval_num == 0
        {read}
            print(np.mean(loss_train))
"""


def test_a_list_numpy_reads_only_under_an_interval_is_a_running_total():
    """SwinUNETR's pre-training appends ``loss.item()`` every step and hands the list to
    ``np.mean`` only under ``if val_cond:`` (``global_step % eval_num == 0``): one copy per
    interval would do (R22), the per-step sync stays flagged."""
    assert _found(LIST_READ_AT_AN_INTERVAL.replace("{read}", "if val_cond:")) == [
        ("TPL102", 10, 26, SYNC.format(what="`.item()`"))]


def test_a_list_numpy_reads_every_step_is_host_needed():
    """The running window read every step (a progress print of ``np.mean(loss_hist)``): R3."""
    assert _found(LIST_READ_AT_AN_INTERVAL.replace("{read}", "if args.verbose:")) == []


ACTIONS_INDEX_AN_ARRAY = """\
import numpy as np
import torch


def calc_loss(batch, net, tgt_net, device):
    states, next_states = batch
    next_distr_v, next_qvals_v = tgt_net.both(torch.tensor(next_states).to(device))
    next_acts = next_qvals_v.max(1)[1].data.cpu().numpy()
    next_distr = tgt_net.apply_softmax(next_distr_v)
    next_distr = {array}
    best = next_distr[range(len(batch)), next_acts]
    loss = net(torch.tensor(states).to(device)).mean() + float(np.clip(best, 0, 1).sum())
    loss.backward()
    return loss


def train(net, tgt_net, loader, opt, device):
    for batch in loader:
        calc_loss(batch, net, tgt_net, device)
        opt.step()
"""


def test_actions_that_index_a_numpy_array_made_later_in_the_function_are_host_needed():
    """DRL-Hands-On's distributional DQN: ``next_acts = ....cpu().numpy()`` indexes ``next_distr``,
    rebound to a ``.numpy()`` copy after the sync and before the index: numpy indexes on the host
    (R3). The last binding before the use decides, not the first."""
    assert _found(ACTIONS_INDEX_AN_ARRAY.replace("{array}", "next_distr.data.cpu().numpy()")) == []


def test_the_same_actions_indexing_a_tensor_still_sync():
    """``calc_loss`` runs its own backward: a step body itself, where R48 (numpy copies in helpers
    a step calls) does not apply and value flow reads where the array goes."""
    item = SYNC.format(what="`.cpu()`")
    assert _found(ACTIONS_INDEX_AN_ARRAY.replace("{array}", "next_distr * 2")) == [("TPL102", 8, 16, item)]


ROLLOUT = """\
import torch


def rollout(policy, env, reward_scaler, buffer, optimizer, td):
    while not td["done"].all():
        with torch.no_grad():
            out = policy(td)
        td = env.step(out)
        reward = reward_scaler(td["reward"])
        buffer.extend(reward)
        {update}
    return buffer


def train(policy, env, reward_scaler, buffer, optimizer, loader):
    for batch in loader:
        rollout(policy, env, reward_scaler, buffer, optimizer, batch.cuda())
        loss = policy(batch.cuda()).mean()
        loss.backward()
        optimizer.step()
"""


def test_the_test_of_a_rollout_loop_that_calls_a_reward_scaler_is_host_needed():
    """rl4co's StepwisePPO: ``while not td["done"].all():`` decides whether the rollout stops, a
    loop that runs no update (rules.md: a value that decides whether a loop stops); calling a
    reward scaler object (``reward_scaler(r)``, ``self.scaler(r)``) steps no optimizer."""
    assert _found(ROLLOUT.replace("{update}", "")) == []


def test_the_test_of_a_loop_that_steps_the_optimizer_still_syncs():
    item = SYNC.format(what="testing a tensor's truth") + " (called every step from train.py:17)"
    assert _found(ROLLOUT.replace("{update}", "optimizer.step()")) == [("TPL102", 5, 10, item)]


FINAL_TEST_PASS = """\
import torch


def {name}(net, optimizer, train_loader, test_loader, device, epochs, results):
    for epoch in range(epochs):
        for x, y in train_loader:
            loss = net(x.to(device)).sum()
            loss.backward()
            optimizer.step()
    for x, y in test_loader:
        out = net(x.to(device))
        results.append(out.cpu().numpy().tolist())
"""


def test_a_test_pass_after_the_epoch_loop_trains_nothing_whatever_the_function_is_called():
    """alignn's ``train_dgl`` runs its test loader after the epoch loop: the training loop is in
    sight beside it in the function, so the final pass is the run's evaluation (R36), its kept
    predictions evaluation copies (R8), although the function's name says it trains."""
    assert _found(FINAL_TEST_PASS.replace("{name}", "train_dgl")) == []


def test_a_pass_with_no_training_in_sight_in_a_function_named_for_training_stays_flagged():
    source = FINAL_TEST_PASS.replace("{name}", "train_dgl").replace(
        "            loss.backward()\n            optimizer.step()\n", "            results.append(loss)\n")
    assert _found(source) == [("TPL102", 11, 23, SYNC.format(what="`.cpu()`"))]


PCA_ATTRIBUTE = """\
import torch
from sklearn.decomposition import PCA


class Projector:
    def transform(self, h):
        return h


class Probe(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.pca = {pca}
        self.head = torch.nn.Linear(4, 1)

    def fit(self, hidden, optimizer):
        for h in hidden:
            h = self.pca.transform(h.cpu().numpy())
            loss = self.head(torch.tensor(h).cuda()).mean()
            loss.backward()
            optimizer.step()
"""


def test_a_method_of_a_self_attribute_a_host_library_made_is_a_host_library_call():
    """lobster's MLP probe: ``self.pca = PCA(n) if n else None``, then every step
    ``self.pca.transform(h.cpu().numpy())``: scikit-learn reads the copy on the host (R3)."""
    assert _found(PCA_ATTRIBUTE.replace("{pca}", "PCA(n_components=n) if n else None")) == []


def test_the_same_method_of_a_project_object_still_syncs():
    assert _found(PCA_ATTRIBUTE.replace("{pca}", "Projector()")) == [
        ("TPL102", 18, 35, SYNC.format(what="`.cpu()`"))]


METRIC_OF_HOST_ARRAYS = """\
import numpy as np
import torch
from scipy.ndimage import zoom


def metric_percase(pred, gt):
    if pred.sum() > 0 and gt.sum() > 0:
        return 1
    return 0


def test_volume(image, label, net, classes):
    image, label = image.squeeze(0).cpu().numpy(), label.squeeze(0).cpu().numpy()
    if len(image.shape) == 3:
        prediction = {made}
        for ind in range(image.shape[0]):
            out = net(torch.from_numpy(image[ind]).cuda())
            prediction[ind] = out.argmax(0).cpu().numpy()
    else:
        prediction = net(torch.from_numpy(image).cuda()).argmax(0).cpu().numpy()
        if image.shape[0] != 3:
            prediction = zoom(prediction, (2, 2), order=0)
    metric_list = []
    for i in range(1, classes):
        metric_list.append(metric_percase(prediction == i, label == i))
    return metric_list


def validate(net, loader, classes):
    total = 0
    for image, label in loader:
        total += np.mean(test_volume(image, label, net, classes))
    return total
"""


def test_a_metric_helper_handed_arrays_numpy_and_scipy_made_tests_host_values():
    """SAMed's ``calculate_metric_percase``: its only caller hands ``prediction == i`` and
    ``label == i``, where ``prediction`` is ``np.zeros_like(label)`` filled item by item, a
    ``.numpy()`` copy or scipy's ``zoom`` of one, ``label`` a ``.numpy()`` copy unpacked from a
    tuple and ``i`` a ``range`` counter: the tests read host arrays (rules.md "Where a value
    lives")."""
    assert _found(METRIC_OF_HOST_ARRAYS.replace("{made}", "np.zeros_like(label)")) == []


def test_the_same_helper_handed_a_device_tensor_filled_item_by_item_still_syncs():
    item = SYNC.format(what="testing a tensor's truth") + " (called every step from train.py:32 via test_volume)"
    source = METRIC_OF_HOST_ARRAYS.replace("{made}", "torch.zeros(image.shape).cuda()").replace(
        "prediction[ind] = out.argmax(0).cpu().numpy()", "prediction[ind] = out.argmax(0)")
    assert _found(source) == [("TPL102", 7, 7, item)]


MEMORY_BENCHMARK = """\
import torch


def benchmark_memory_bwd(fn, *inputs):
    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats()
    torch.cuda.synchronize()
    y = fn(*inputs)
    y.sum().backward()
    torch.cuda.synchronize()
    mem = {read}
    torch.cuda.empty_cache()
    return mem
"""


def test_a_function_that_measures_peak_memory_keeps_its_syncs_and_empty_cache():
    """hyena-dna's ``benchmark_memory_bwd`` (a step body by its own backward, rules.md): it resets
    and reads back the peak memory statistics, so its ``synchronize()`` calls make the reading mean
    something and its ``empty_cache()`` calls give it a clean start (R6's timer, R43)."""
    assert _found(MEMORY_BENCHMARK.replace("{read}", "torch.cuda.max_memory_allocated()"),
                  codes=("TPL102", "TPL103")) == []


def test_the_same_function_reading_no_peak_still_reports_both():
    empty = ("`torch.cuda.empty_cache()` in a loop frees the allocator's cache only for it to be "
             "re-allocated with synchronous cudaMalloc calls; remove it (the caching allocator reuses memory)")
    sync = SYNC.format(what="`torch.cuda.synchronize()`")
    assert _found(MEMORY_BENCHMARK.replace("{read}", "y.detach()"), codes=("TPL102", "TPL103")) == [
        ("TPL103", 5, 4, empty), ("TPL102", 7, 4, sync), ("TPL102", 10, 4, sync), ("TPL103", 12, 4, empty)]


ALL_GATHER = """\
import torch
import torch.distributed as dist


def all_gather(tensor, world_size):
    local_size = torch.LongTensor([tensor.numel()]).to("cuda")
    size_list = [torch.LongTensor([0]).to("cuda") for _ in range(world_size)]
    dist.all_gather(size_list, local_size)
    size_list = [int(size.item()) for size in size_list]
    max_size = max(size_list)
    tensor_list = []
    for _ in size_list:
        tensor_list.append(torch.FloatTensor(size=(max_size,)).cuda())
    if local_size != max_size:
        {pad}
    dist.all_gather(tensor_list, tensor)
    {kept}
    return [t[:size] for size, t in zip(size_list, tensor_list)]


def train(model, loader, opt, world_size):
    for x in loader:
        loss = model(x.cuda()).mean()
        loss.backward()
        opt.step()
        all_gather(loss.detach(), world_size)
"""
PAD = "tensor = torch.cat((tensor, torch.FloatTensor(size=(max_size - local_size,)).cuda()), dim=0)"


def test_detectron2_all_gather_reads_sizes_the_host_needs():
    """detectron2's ``comm.all_gather`` (copied into OpenPCDet): the gathered sizes become Python
    ints in a list whose maximum sizes the receive buffers and whose items bound slices, and the
    test of the local size guards a padding sized by it: sizes the host needs (R3, R38)."""
    assert _found(ALL_GATHER.replace("{pad}", PAD).replace("{kept}", "")) == []


def test_a_test_that_guards_no_size_still_syncs():
    chain = " (called every step from train.py:26)"
    source = ALL_GATHER.replace("{pad}", "tensor = tensor * 2").replace("{kept}", "")
    assert _found(source) == [("TPL102", 14, 7, SYNC.format(what="testing a tensor's truth") + chain)]


def test_gathered_sizes_only_printed_still_sync():
    source = ALL_GATHER.replace("{pad}", PAD).replace("{kept}", "print(size_list)").replace(
        "    max_size = max(size_list)\n", "    max_size = 4096\n").replace(
        "    return [t[:size] for size, t in zip(size_list, tensor_list)]", "    return tensor_list")
    assert _found(source) == [("TPL102", 9, 21, SYNC.format(what="`.item()`") + " (called every step from train.py:26)")]


SAFE_DEVICE = """\
import torch


def safe_device(x, device):
    if "cuda" in device:
        if torch.cuda.is_available():
            return x.to(device)
        {fallback}
            return x.cpu()
    return x


def train(model, loader, opt, device):
    for batch in loader:
        loss = model(safe_device(model(batch.cuda()), device)).mean()
        loss.backward()
        opt.step()
"""


def test_a_copy_in_the_branch_that_runs_without_cuda_waits_for_nothing():
    """LIBERO's ``safe_device``: the ``else`` of ``if torch.cuda.is_available():`` runs only where
    no CUDA device exists, so its ``.cpu()`` has no device to wait for."""
    assert _found(SAFE_DEVICE.replace("{fallback}", "else:")) == []


def test_the_same_copy_in_a_branch_cuda_may_run_still_syncs():
    source = SAFE_DEVICE.replace("{fallback}", "else:").replace("torch.cuda.is_available()", "len(device) > 4")
    assert _found(source) == [
        ("TPL102", 9, 19, SYNC.format(what="`.cpu()`") + " (called every step from train.py:15)")]


SPARSE_ROWS = """\
import numpy as np
import torch


def sample_batch(bat_ids, label_mat):
    rows = label_mat[bat_ids.cpu()].{read}()
    return rows


def train(model, loader, opt, label_mat):
    for bat_ids in loader:
        bat_ids = bat_ids.cuda()
        rows = sample_batch(bat_ids, label_mat)
        loss = model(bat_ids, rows).mean()
        loss.backward()
        opt.step()
"""


def test_ids_that_index_a_matrix_read_with_a_scipy_sparse_method_are_host_needed():
    """SSLRec's ``_sampleTrainBatch``: ``labelMat[batIds.cpu()].toarray()``: what the ids index
    has a method only scipy's sparse matrices have, so it lives on the host (R3, an index)."""
    assert _found(SPARSE_ROWS.replace("{read}", "toarray")) == []


def test_ids_that_index_what_may_be_a_tensor_still_sync():
    assert _found(SPARSE_ROWS.replace("{read}", "float")) == [
        ("TPL102", 6, 21, SYNC.format(what="`.cpu()`") + " (called every step from train.py:13)")]


GRADIENT_BUFFER = """\
import numpy as np
import torch


class AGEM:
    def __init__(self, model, device):
        self.grad_dims = [p.numel() for p in model.parameters()]
        self.grad_cur = torch.Tensor({size}).to(device)
"""


def test_a_legacy_constructor_handed_the_total_of_a_list_of_sizes_makes_a_size():
    """LIBERO's A-GEM: ``torch.Tensor(np.sum(self.grad_dims)).to(device)``: one number, the total of
    the parameters' sizes, which the constructor reads as a size (a buffer made on the host, then
    copied); ``sum(...)`` alike. A list or a name the linter cannot tell stays silent."""
    legacy = ("tensor is created on the CPU by the legacy constructor `torch.Tensor(...)` and then copied to "
              "the device; create it there with `torch.empty(..., device=...)`")
    for size in ("np.sum(self.grad_dims)", "sum(self.grad_dims)"):
        found = [(f.code, f.line, f.col, f.message, f.fix is None) for f in lint_source(
            GRADIENT_BUFFER.replace("{size}", size), "train.py", codes=("TPL101",))]
        assert found == [("TPL101", 8, 24, legacy, True)]  # (a suggestion: no fix is offered)
    assert _found(GRADIENT_BUFFER.replace("{size}", "self.grad_dims"), codes=("TPL101",)) == []


PLACEHOLDERS_IN_TWO_BRANCHES = """\
import torch
import pytorch_lightning as pl


class M(pl.LightningModule):
    def training_step(self, batch, batch_index):
        if self.mode == 1:
            g_loss = {first}
        elif self.mode == 2:
            g_loss = torch.zeros(1)
        else:
            g_loss = torch.zeros(1)
        self.log("g", g_loss.detach().cpu().item())
        return g_loss
"""


def test_a_value_an_unresolved_call_gives_in_the_first_branch_may_be_on_the_device():
    """vqvae-vqgan's ``training_step``: ``g_loss`` comes from the criterion in the ``if`` branch and
    is a ``torch.zeros(1)`` placeholder in the ``elif`` and ``else``: after the ``if`` it may be on
    the device (rules.md "Where a value lives"), whatever the inner ``elif``/``else`` pair binds."""
    assert _found(PLACEHOLDERS_IN_TWO_BRANCHES.replace("{first}", "self.criterion(batch)")) == [
        ("TPL102", 13, 22, SYNC.format(what="`.cpu()`"))]


def test_placeholders_in_every_branch_are_on_the_host():
    assert _found(PLACEHOLDERS_IN_TWO_BRANCHES.replace("{first}", "torch.zeros(1)")) == []


CONSTANT_MAPPING = """\
import torch
import pytorch_lightning as pl


class Separation(pl.LightningModule):
    def __init__(self, cfg):
        super().__init__()
        self.{mapping} = cfg.MIDI_MAPPING.IX_TO_NAME

    def training_step(self, batch, batch_idx):
        condition = self.conditioner(batch["waveform"])
        roll = batch["target_dict"][0][self.{mapping}[condition.argmax().item()]]
        loss = self.network(batch["waveform"], torch.from_numpy(roll)).mean()
        return loss
"""


def test_a_key_of_a_mapping_named_as_a_python_constant_is_host_needed():
    """Jointist's ``self.IX_TO_NAME[condition.argmax().item()]``: a mapping from its config, named
    as a Python constant: the lookup takes a Python number on the host (R31)."""
    assert _found(CONSTANT_MAPPING.replace("{mapping}", "IX_TO_NAME")) == []


def test_the_same_lookup_in_what_may_be_a_tensor_still_syncs():
    # (``ix_to_name`` was this twin until R47.3: a table from indices to names holds strings, which
    # no tensor does; a table to weights may be one)
    assert _found(CONSTANT_MAPPING.replace("{mapping}", "ix_to_weight")) == [
        ("TPL102", 12, 57, SYNC.format(what="`.item()`"))]


FIRST_STEPS_OF_AN_ATTRIBUTE = """\
import torch
import pytorch_lightning as pl


class M(pl.LightningModule):
    def training_step(self, batch, batch_idx):
        x, y = batch
        if self.{counter} < 5:
            self.images.extend(x[:, 0].cpu())
        return self.net(x).mean()
"""


def test_the_first_few_steps_of_the_global_step_are_an_interval():
    """PaSST's ``if self.global_step < 5:`` logs spectrograms for the first five steps only:
    ``if step < 5:`` on the step counter (rules.md "An interval")."""
    assert _found(FIRST_STEPS_OF_AN_ATTRIBUTE.replace("{counter}", "global_step")) == []


def test_an_attribute_that_counts_no_step_is_no_interval():
    assert _found(FIRST_STEPS_OF_AN_ATTRIBUTE.replace("{counter}", "n_images")) == [
        ("TPL102", 9, 31, SYNC.format(what="`.cpu()`"))]


def test_a_helper_called_in_the_first_few_steps_only_is_not_per_step():
    """The ast twin (the index's per-step calls): a helper called under ``if self.global_step < 5:``
    runs in the first steps only; called under a test of another attribute it runs every step."""
    source = FIRST_STEPS_OF_AN_ATTRIBUTE.replace(
        "            self.images.extend(x[:, 0].cpu())\n", "            self.keep(x)\n") + '''
    def keep(self, x):
        self.images.extend(x[:, 0].cpu())
'''
    assert _found(source.replace("{counter}", "global_step")) == []
    assert _found(source.replace("{counter}", "n_images")) == [
        ("TPL102", 13, 27, SYNC.format(what="`.cpu()`") + " (called every step from train.py:9 via training_step)")]


SANDWICH = """\
import torch
from torch.nn.parallel import DistributedDataParallel


def train(model, loader, optimizer, args):
    model = DistributedDataParallel(model)
    for step, batch in enumerate(loader):
        for i in range(args.num_sandwich + 1):
            loss = model(batch).mean()
            loss.backward()
        if (step + 1) % args.gradient_accumulation_steps == 0:
            optimizer.step()
            optimizer.zero_grad()
"""


def test_a_backward_in_a_loop_inside_the_accumulation_loop_is_accumulated():
    """dynamic-tinybert's sandwich of sub-networks: the backward runs in ``for i in
    range(num_sandwich + 1)``, a loop inside the accumulation loop whose optimizer step runs every
    few steps: every backward all-reduces (TPL207)."""
    message = ("gradient accumulation on a DistributedDataParallel model: this backward runs every time round "
               "but the optimizer steps only every few rounds, and DDP all-reduces all gradients on each "
               "backward; run the forward and backward of the micro-batches that do not step under "
               "`with model.no_sync():` (DDP decides at the forward; one all-reduce per optimizer step) "
               "(runtime_guard: all-reduces per optimizer step observed)")
    assert _found(SANDWICH, codes=("TPL207",)) == [("TPL207", 10, 12, message)]


def test_the_same_sandwich_stepping_every_step_accumulates_nothing():
    source = SANDWICH.replace("        if (step + 1) % args.gradient_accumulation_steps == 0:\n",
                              "        if True:\n")
    assert _found(source, codes=("TPL207",)) == []


PER_DOMAIN_FORWARDS = """\
import torch
import torch.nn.functional as F


class IGA(torch.nn.Module):
    def update(self, minibatches):
        total_loss = 0
        for i, (x, y) in enumerate(minibatches):
            logits = self.network(x)
            total_loss += F.cross_entropy(logits, y)
            {inner}
        mean_loss = total_loss / len(minibatches)
        self.optimizer.zero_grad()
        mean_loss.backward()
        self.optimizer.step()
        return {"loss": mean_loss.item()}
"""


def test_a_loop_of_forwards_in_a_function_that_performs_one_step_is_part_of_the_step():
    """DomainBed's IGA.update: one forward per domain's minibatch in a loop, then one backward and
    one optimizer step outside it: the function performs one step (rules.md "A step body"), and
    its ``.item()`` runs every step; the loop is part of that step, not a loop of steps."""
    assert _found(PER_DOMAIN_FORWARDS.replace("{inner}", "")) == [
        ("TPL102", 16, 24, SYNC.format(what="`.item()`"))]


def test_a_loop_that_updates_inside_makes_the_function_a_driver():
    source = PER_DOMAIN_FORWARDS.replace("{inner}", "total_loss.backward()")
    assert _found(source) == []


def test_a_trainer_that_records_its_own_peak_memory_every_step_still_waits():
    """ludic's ``_capture_forward_memory_stats`` (labelled in holdout35) resets and reads the peak
    memory statistics too, but measures no function it is handed: a training step's own per-step
    record, whose ``synchronize()`` stays a wait every step."""
    source = MEMORY_BENCHMARK.replace("{read}", "torch.cuda.max_memory_allocated()").replace(
        "y = fn(*inputs)", "y = torch.matmul(*inputs)")
    sync = SYNC.format(what="`torch.cuda.synchronize()`")
    found = _found(source, codes=("TPL102",))
    assert found == [("TPL102", 7, 4, sync), ("TPL102", 10, 4, sync)]
