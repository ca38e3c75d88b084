"""Forms of the thirty-fifth session (2026-11-29) the engine got wrong: each with its flagged and
silent twins, whole diagnostics."""

from _diagnostics import CPU_CREATION_TEMPLATE, SYNC_TEMPLATE, UNPINNED_LOADER, found, rule_diagnostics

FORMATTED = SYNC_TEMPLATE.format(what="formatting a tensor")
AS_FLOAT = SYNC_TEMPLATE.format(what="`float()` of a tensor")

BACKWARDED_ITEM = """\
import torch
from tqdm import tqdm


def compute_losses(data, pred):
    losses = {{}}
    for i in range(len(pred)):
        losses["mae_{{}}".format(i)] = torch.nn.functional.l1_loss(pred[i], data)
    losses["total"] = sum(losses.values())
    return losses


def run(model, loader, optimizer):
    tbar = tqdm(total=len(loader))
    for data in loader:
        optimizer.zero_grad()
        train_losses = compute_losses(data, model(data))
        {backward}
        optimizer.step()
        {between}
        tbar.set_description("Loss:{{:.3g}}".format(train_losses["total"]))
"""


def test_an_item_whose_backward_ran_is_a_device_tensor_when_formatted():
    """RPMNet's loop (holdout209): ``train_losses["total"].backward()`` then the progress bar formats
    ``train_losses["total"]`` every step. The container comes back from a project helper as a dict
    value flow cannot read, but the item's ``.backward()`` says it is a tensor (R184), as a name's
    does (``loss.backward()``)."""
    source = BACKWARDED_ITEM.format(backward='train_losses["total"].backward()', between="pass")
    assert found(source) == [("TPL102", 21, 29, FORMATTED)]
    # an integer key as well (``losses[0].backward()``)
    source = BACKWARDED_ITEM.format(backward="train_losses[0].backward()", between="pass").replace(
        'train_losses["total"])', "train_losses[0])")
    assert found(source) == [("TPL102", 21, 29, FORMATTED)]


def test_another_key_a_rebound_container_or_no_backward_stays_silent():
    """Only the item whose backward ran: another key of the same dict, the same key after the name
    is bound again (to a dict of numbers), and the item with no backward at all say nothing."""
    other_key = BACKWARDED_ITEM.format(backward='train_losses["mae_0"].backward()', between="pass")
    rebound = BACKWARDED_ITEM.format(backward='train_losses["total"].backward()',
                                     between="train_losses = {k: float(v) for k, v in train_losses.items()}")
    no_backward = BACKWARDED_ITEM.format(backward="pass", between="pass")
    for source in (other_key, rebound, no_backward):
        assert found(source) == [], source


ENTITY_PAIRS = """\
import torch


def train(model, loader, optimizer, path_table):
    for batch in loader:
        pairs = batch["h_t_pairs"].cuda()
        loss = model(pairs)
        for i in range(pairs.size(0)):
            path_t = path_table[i]
            h = pairs[i, 0].item()
            t = pairs[i, 1].item()
            {test}
                loss = loss + 1
        loss.backward()
        optimizer.step()
"""


def test_an_item_in_a_tuple_tested_for_membership_is_a_python_key():
    """GAIN's forward (holdout217): ``h = pairs[i, j, 0].item()`` ... ``if (h + 1, t + 1) in path_t:``.
    A tensor does not answer ``in`` for a tuple, so ``path_t`` is a Python dict or set, which hashes
    the key on the host (R31's dict keys; R185): the ``.item()`` calls stay silent, also with
    ``not in`` and the numbers as they are."""
    for test in ("if (h + 1, t + 1) in path_t:", "if (h, t) not in path_t:", "if (t - 1, h) in path_t:"):
        assert found(ENTITY_PAIRS.replace("{test}", test)) == [], test


def test_items_compared_or_tested_as_a_tuple_element_otherwise_stay_reported():
    """The same ``.item()`` calls compared as numbers (``if h > t:``), or put in a tuple that is not
    asked for membership (``if (h + 1, t + 1) == key:``), read a number every pair: reported."""
    item = SYNC_TEMPLATE.format(what="`.item()`")
    for test in ("if h > t:", "if (h + 1, t + 1) == path_t:", "if (h * 2, t) in path_t:"):
        expected = [("TPL102", 10, 16, item), ("TPL102", 11, 16, item)]
        if test == "if (h * 2, t) in path_t:":
            expected = [("TPL102", 10, 16, item)]  # ``h * 2`` is arithmetic R185 does not read through
        assert found(ENTITY_PAIRS.replace("{test}", test)) == expected, test


LEGACY_LENGTHS = """\
import torch
from torch.autograd import Variable


def masked_cross_entropy(logits, target, length):
    {binding}
    mask = torch.arange(logits.size(1), device=logits.device)[None] < length[:, None]
    return (torch.nn.functional.cross_entropy(logits.transpose(1, 2), target, reduction="none") * mask).sum()
"""
LEGACY_LONG = ("tensor is created on the CPU by the legacy constructor `torch.LongTensor(...)` and then copied to "
               "the device; create it there with `torch.empty(..., dtype=torch.int64, device=...)`")


def test_a_size_named_parameter_converted_under_its_own_name_is_data():
    """trade-dst's ``length = Variable(torch.LongTensor(length)).cuda()`` (holdout217): the function
    turns the list of lengths it is handed into a tensor under the same name; nobody names an
    uninitialised buffer after the size it was made from (R186). The constructor bound to another
    name (``buf = torch.LongTensor(length).cuda()``) still reads ``length`` as a size (R65)."""
    assert found(LEGACY_LENGTHS.replace("{binding}", "length = Variable(torch.LongTensor(length)).cuda()"),
                 ("TPL101",)) == []
    assert found(LEGACY_LENGTHS.replace("{binding}", "length = torch.LongTensor(length).cuda()"), ("TPL101",)) == []
    assert found(LEGACY_LENGTHS.replace("{binding}", "buf = torch.LongTensor(length).cuda()"),
                 ("TPL101",)) == [("TPL101", 6, 10, LEGACY_LONG)]


def test_the_converted_lengths_compute_the_same_loss():
    """The silent form is the function working as written: run on CPU with a list of lengths (the
    ``.cuda()`` replaced by ``.to("cpu")``), the mask keeps the first ``length[i]`` positions."""
    import torch

    source = LEGACY_LENGTHS.replace("{binding}", 'length = Variable(torch.LongTensor(length)).to("cpu")')
    namespace: dict = {}
    exec(compile(source, "lengths.py", "exec"), namespace)
    logits = torch.zeros(2, 3, 4)
    target = torch.zeros(2, 3, dtype=torch.long)
    loss = namespace["masked_cross_entropy"](logits, target, [1, 3])
    # uniform logits over 4 classes: each kept position costs log(4); 1 + 3 positions are kept
    assert torch.isclose(loss, torch.tensor(4 * torch.log(torch.tensor(4.0)).item()))


EVALUATION_LOADER = """\
import torch
from torch.utils.data import DataLoader, TensorDataset


def evaluate(model, features, device):
    all_input_ids, all_label_ids = features
    {move}
    eval_dataloader = DataLoader(TensorDataset(all_input_ids, all_label_ids), batch_size=4)
    total, examples = 0.0, 0
    model.eval()
    for input_ids, label_ids in eval_dataloader:
        with torch.no_grad():
            loss = model(input_ids, label_ids)
        nb_eval_ex = (label_ids != -1).sum().item()
        examples += nb_eval_ex
        total += float(loss) * nb_eval_ex
    return total / examples
"""


def test_a_loader_over_a_tensor_dataset_of_moved_names_hands_out_device_batches():
    """SUMBT's evaluation (holdout217): the feature tensors are moved by a tuple assignment and then
    wrapped in a ``TensorDataset``; its loader hands out slices of device tensors, so counting the
    labels with ``.item()`` every batch waits for the device (R187). Before, only a dataset built
    of moves written inline (``TensorDataset(x.cuda(), ...)``) was read so."""
    item = SYNC_TEMPLATE.format(what="`.item()`")
    move = "all_input_ids, all_label_ids = all_input_ids.to(device), all_label_ids.to(device)"
    assert found(EVALUATION_LOADER.replace("{move}", move)) == [
        ("TPL102", 14, 21, item), ("TPL102", 16, 17, AS_FLOAT)]


def test_a_tensor_dataset_of_names_not_moved_last_stays_on_the_host():
    """The names moved and then bound again to host tensors (``.cpu()``), or never moved: the batches
    are host tensors and counting them waits for nothing; only the model's loss is reported."""
    moved_back = "all_input_ids = all_input_ids.to(device)\n    all_input_ids = all_input_ids.cpu()"
    assert found(EVALUATION_LOADER.replace("{move}", moved_back)) == [("TPL102", 17, 17, AS_FLOAT)]
    assert found(EVALUATION_LOADER.replace("{move}", "pass")) == [("TPL102", 16, 17, AS_FLOAT)]


ROW_OF_LOSSES = """\
import numpy as np
import torch


def inference(model, loader, progress):
    statistics = []
    for batch_idx, (data, target) in enumerate(loader):
        with torch.no_grad():
            losses, output = model(data.cuda(), target.cuda())
        losses = [torch.mean(v) for v in losses]
        loss_values = [v.item() for v in losses]
        statistics.append(loss_values)
        {read}
"""


def test_a_row_of_items_appended_to_a_list_numpy_reads_every_batch_is_host_needed():
    """flownet2's inference (holdout216): ``loss_values = [v.item() for v in losses]`` appended to
    ``statistics``, which ``np.array(statistics).mean(axis=0)`` reads every batch for the progress
    bar: numpy needs the numbers on the host every batch (R3), as when ``v.item()`` itself is
    appended (R188)."""
    read = 'progress.set_description("{}".format(np.array(statistics).mean(axis=0)))'
    assert found(ROW_OF_LOSSES.replace("{read}", read)) == []


def test_a_row_of_items_numpy_reads_only_after_the_loop_stays_reported():
    """The same rows handed to numpy once, after the loop, need one copy there, not one per batch;
    and a row that is never appended is read as the numbers are (kept: R7)."""
    item = SYNC_TEMPLATE.format(what="`.item()`")
    after = ROW_OF_LOSSES.replace("        {read}", "    return np.array(statistics).mean(axis=0)")
    assert found(after) == [("TPL102", 11, 23, item)]
    unappended = ROW_OF_LOSSES.replace("        statistics.append(loss_values)\n", "").replace(
        "{read}", 'progress.set_description("{}".format(np.array(statistics).mean(axis=0)))')
    assert found(unappended) == [("TPL102", 11, 23, item)]


SEQUENCE_MASK = """\
import torch
from torch.autograd import Variable


def sequence_mask(sequence_length, max_len):
    batch_size = sequence_length.size(0)
    seq_range = torch.arange(0, max_len).long()
    seq_range_expand = seq_range.unsqueeze(0).expand(batch_size, max_len)
    seq_range_expand = Variable(seq_range_expand)
    if sequence_length.is_cuda:
        seq_range_expand = seq_range_expand.cuda()
    seq_length_expand = sequence_length.unsqueeze(1).expand_as(seq_range_expand)
    return seq_range_expand < seq_length_expand{kept}
"""
ARANGE = CPU_CREATION_TEMPLATE.format(factory="arange")


def test_a_factory_read_once_into_another_name_that_is_moved_is_reported():
    """trade-dst's ``sequence_mask`` (holdout217; the OpenNMT form): ``seq_range`` is read once, into
    ``seq_range_expand`` through ops that keep it a fresh host tensor (and a ``Variable``), and that
    name is moved when the lengths are on the GPU. The host tensor is never used as such (R189,
    R167's reading one name further). No fix: creation and move are apart."""
    assert rule_diagnostics(SEQUENCE_MASK.replace("{kept}", ""), "TPL101") == [(7, 16, ARANGE, None, None)]


def test_a_factory_read_again_after_the_copy_stays_silent():
    """``seq_range`` read again (returned beside the mask): the host tensor is used as such, and
    creating it on the device would change that use."""
    assert rule_diagnostics(SEQUENCE_MASK.replace("{kept}", ", seq_range"), "TPL101") == []


AUX_TENSORS = """\
import torch


def train(model, loader, optimizer, device):
    for batch in loader:
        ids, lens = [t.{move} for t in batch]
        token_type_ids = torch.zeros(ids.size(), dtype=torch.long, device=ids.device)
        for i in range(lens.size(0)):
            for j in range(lens.size(1)):
                if lens[i, j, 0] == 0:
                    break
                elif lens[i, j, 1] > 0:
                    token_type_ids[i, j, 0] = 1
        loss = model(ids, token_type_ids).sum()
        loss.backward()
        optimizer.step()
"""


def test_names_unpacked_from_a_list_of_moves_are_device_tensors():
    """SUMBT's ``_make_aux_tensors`` (holdout217) tests ``len[i, j, 1] > 0`` for every turn of the
    batch's lengths; the batch comes ``input_ids, input_len, label_ids = [t.to(device) for t in
    batch]``-style, so each name unpacked from the list of moves is a device tensor (R190) and the
    test waits for it. The ``if`` that breaks the loop decides where it stops (host-needed)."""
    truth = SYNC_TEMPLATE.format(what="testing a tensor's truth")
    assert found(AUX_TENSORS.replace("{move}", "to(device)")) == [("TPL102", 12, 21, truth)]
    assert found(AUX_TENSORS.replace("{move}", "cuda()")) == [("TPL102", 12, 21, truth)]


def test_names_unpacked_from_a_list_of_host_copies_stay_silent():
    """The same names unpacked from ``[t.cpu() for t in batch]`` or ``[t.numpy() for t in batch]``
    are host values; from ``[t.float() for t in batch]`` nothing says where they are, and a
    comparison of values of unknown kind is not read as a tensor's truth."""
    for move in ("cpu()", "numpy()", "float()"):
        assert found(AUX_TENSORS.replace("{move}", move)) == [], move


BATCH_BUILDER = """\
import numpy as np
import torch


def train(loader, model, optimizer):
    for att_batch in loader:
        data = {{}}
        data["att_masks"] = {made}
        for i in range(len(att_batch)):
            data["att_masks"][i, :3] = 1
        if data["att_masks"].sum() == 15:
            data["att_masks"] = None
        {between}
        loss = model(att_batch, data["att_masks"]).sum()
        loss.backward()
        optimizer.step()
"""


def test_an_item_stored_as_a_numpy_array_is_read_on_the_host():
    """AoANet's batch builder (holdout220): ``data["att_masks"] = np.zeros(...)`` then
    ``if data["att_masks"].sum() == data["att_masks"].size:`` every batch. The item holds what the
    function stored there, a numpy array: testing it waits for nothing (R191)."""
    assert found(BATCH_BUILDER.format(made='np.zeros([len(att_batch), 5], dtype="float32")', between="pass")) == []


def test_an_item_stored_as_a_device_tensor_or_rebound_or_stored_in_a_branch_stays_reported():
    """The same item stored as a tensor on the device is tested on the device every batch; and
    after the dict is bound again, or when the numpy store is in a branch the read is not in,
    the store says nothing and the item is of unknown kind (a ``.sum()`` compared: reported, as
    before R191)."""
    truth = SYNC_TEMPLATE.format(what="testing a tensor's truth")
    assert found(BATCH_BUILDER.format(made="torch.zeros(len(att_batch), 5).cuda()", between="pass")) == [
        ("TPL102", 11, 11, truth)]
    branch = BATCH_BUILDER.format(made="None", between="pass").replace(
        '        data["att_masks"] = None\n        for i', '        if len(att_batch) > 1:\n'
        '            data["att_masks"] = np.zeros([len(att_batch), 5])\n        for i')
    assert found(branch) == [("TPL102", 12, 11, truth)]


DECODED_WORDS = """\
import torch


def train(model, loader, optimizer, ix_to_word, counts):
    for x in loader:
        seq = model(x.cuda())
        txt = ""
        for j in range(seq.size(1)):
            ix = seq[0, j]
            {use}
        seq.sum().backward()
        optimizer.step()
"""


def test_a_key_made_a_string_is_a_python_mapping_key():
    """AoANet's ``decode_sequence`` (holdout220): ``txt + ix_to_word[str(ix.item())]``. The key is the
    number made a string: R31's dict key (R47.3's table of words), read through ``str(...)``; and
    since no tensor takes a string index, a store ``counts[str(ix.item())] = 1`` into any container
    is a Python mapping's too (R192)."""
    for use in ('txt = txt + ix_to_word[str(ix.item())]', "counts[str(ix.item())] = 1"):
        assert found(DECODED_WORDS.replace("{use}", use)) == [], use


def test_a_number_made_a_string_for_anything_else_stays_reported():
    """``str(ix.item())`` formatted into a message or made a float again, and ``int(ix.item())`` as the
    index of a container of unknown kind (a tensor takes an int index), read the number every step."""
    item = SYNC_TEMPLATE.format(what="`.item()`")
    for use, column in (("txt = txt + str(ix.item())", 28), ("n = float(str(ix.item()))", 26),
                        ("counts[int(ix.item())] = 1", 23)):
        assert found(DECODED_WORDS.replace("{use}", use)) == [("TPL102", 10, column, item)], use


LABEL_BUFFERS = """\
import torch

from config import opt

text = torch.LongTensor({size})
if opt.cuda:
    text = text.cuda()
"""


def test_a_legacy_constructor_given_arithmetic_on_a_size_name_is_sized():
    """MORAN's and Attention_ocr's module-level label buffers (holdout219): ``text =
    torch.LongTensor(opt.batchSize * 5)``, moved under ``if opt.cuda:``. Arithmetic on a name called
    a size (snake or camel case) is a number, so the constructor makes uninitialised numbers on the
    host that are then copied (R193, R65's reading of a name so bound, written in place)."""
    for size in ("opt.batchSize * 5", "opt.batch_size * 5 + 1", "opt.max_len // 2", "opt.nClasses * 2"):
        assert found(LABEL_BUFFERS.replace("{size}", size), ("TPL101",)) == [("TPL101", 5, 7, LEGACY_LONG)], size


def test_arithmetic_on_names_not_called_sizes_stays_unreported():
    """``opt.labels * 5`` may repeat a list (data, which the constructor copies); ``opt.dimension * 2``
    does not end in a size word; both stay unknown and unreported (R65)."""
    for size in ("opt.labels * 5", "opt.sizes_list * 5", "opt.dimension * 2"):
        assert found(LABEL_BUFFERS.replace("{size}", size), ("TPL101",)) == [], size


BEAM_SEARCH = """\
import torch


def evaluate(model, loader, word_map, beam_size, vocab_size):
    for image in loader:
        k = beam_size
        seqs = torch.zeros(k, 1, dtype=torch.long).cuda()
        while True:
            scores = model(image.cuda(), seqs)
            top_k_scores, top_k_words = scores.view(-1).topk(k, 0, True, True)
            next_word_inds = top_k_words % vocab_size
            incomplete_inds = [ind for ind, next_word in enumerate(next_word_inds) if
                               next_word != word_map["<end>"]]
            complete_inds = list(set(range(len(next_word_inds))) - set(incomplete_inds))
            k -= len(complete_inds)
            if k == 0:
                break
            seqs = seqs[incomplete_inds]
"""
TRAINING_FILTER = """\
import torch


def train(model, loader, optimizer):
    for x in loader:
        losses = model(x.cuda())
        kept = [i for i, loss in enumerate(losses) if loss > 0]
        losses[kept].sum().backward()
        optimizer.step()
"""


def test_a_beam_search_collecting_indices_of_unfinished_beams_is_host_needed_decoding():
    """The captioning tutorial's beam search (holdout75, judged false; holdout220, listed silent
    twice): ``[ind for ind, next_word in enumerate(next_word_inds) if next_word != end]`` picks the
    beams that go on and decides when the search stops: in code that trains nothing, a Python list
    of the indices ``enumerate`` hands out is decoding the host needs (R194)."""
    assert found(BEAM_SEARCH) == []


def test_the_same_filter_in_a_training_step_stays_reported():
    """In a training step the filter tests every loss on the host each step: reported."""
    truth = SYNC_TEMPLATE.format(what="testing a tensor's truth")
    assert found(TRAINING_FILTER) == [("TPL102", 7, 54, truth)]


RELATIVE_STAR_IMPORT = """\
import torch
from torch.utils.data import DataLoader

from .fix_label import *

USE_CUDA = torch.cuda.is_available()


def get_loader(data, model):
    loader = DataLoader(data, batch_size=4, num_workers=2)
    for x in loader:
        if USE_CUDA:
            x = x.cuda()
        model(x)
"""


def test_a_relative_star_import_binds_no_name_and_the_pin_fix_is_written():
    """trade-dst's ``from .fix_label import *`` (holdout217) put ``*`` in the import table as a name
    of the project's, and TPL502's fix, which asks each bound name whether it is torch, built a
    ``Name("*")``: libcst refused it and the whole file was reported as "could not analyse (internal
    error)". A star import binds no name it shows; the file is linted and the fix spells
    ``torch.cuda.is_available()``."""
    from torchperf_lint.engine import fix_source, lint_source

    findings = lint_source(RELATIVE_STAR_IMPORT, "pkg/utils.py", codes=["TPL502"])
    assert [(f.code, f.line, f.col, f.message, f.fix and f.fix.applicability) for f in findings] == [
        ("TPL502", 10, 13, UNPINNED_LOADER, "safe")]
    fixed, count = fix_source(RELATIVE_STAR_IMPORT, codes=["TPL502"])
    assert count == 1 and "pin_memory=torch.cuda.is_available()" in fixed
    assert fix_source(fixed, codes=["TPL502"]) == (fixed, 0)
    compile(fixed, "utils.py", "exec")


SCALAR_NAMED = """\
import torch
from torch.cuda.amp import GradScaler, autocast


def train(model, loader, optimizer):
    grad_scalar = GradScaler(2 ** 10)
    for x in loader:
        with autocast():
            loss = model(x.cuda())
        grad_scalar.scale(loss).backward()
        grad_scalar.step(optimizer)
        {update}
"""
NEVER_UPDATED = ("`grad_scalar.update()` is never called in this module: the loss scale never adapts (and a second "
                 "`grad_scalar.step()` raises); call `grad_scalar.update()` after each `grad_scalar.step(optimizer)` "
                 "(runtime_guard: AMP step)")


def test_a_scaler_named_otherwise_is_updated_when_its_update_is_called():
    """RECCE's DDP trainer (holdout222) names its scaler ``grad_scalar`` and calls ``grad_scalar.update()``
    right after ``grad_scalar.step(self.optimizer)``; the rule asked whether any ``.update()`` receiver
    was named "scaler" and reported the update as never called. The receiver the rule saw stepped
    is what must be updated, whatever its name."""
    assert found(SCALAR_NAMED.replace("{update}", "grad_scalar.update()"), ("TPL302",)) == []


def test_a_scaler_never_updated_is_still_reported_whatever_else_is_updated():
    """No ``grad_scalar.update()``: reported (no fix: where ``update()`` goes depends on accumulation),
    also when something else is updated (a meter's ``update(loss)``)."""
    for update in ("pass", "meter.update(loss)"):
        assert found(SCALAR_NAMED.replace("{update}", update), ("TPL302",)) == [
            ("TPL302", 11, 8, NEVER_UPDATED)], update


CER_HELPER = """\
import editdistance
import torch


def compute_cer(predictions, targetBatch, predLens, targetLenBatch):
    targetBatch = targetBatch.cpu()
    trgts = {pieces}
    total = 0
    for n in range(len(trgts)):
        trgt = {read}
        total = total + len(trgt)
    return total


def train(model, loader, optimizer):
    for x, y, lens in loader:
        out = model(x.cuda())
        out.sum().backward()
        optimizer.step()
        cer = compute_cer(out, y.cuda(), lens, lens)
"""


def test_a_copy_split_into_pieces_the_helper_makes_numpy_arrays_is_host_work():
    """deep_avsr's CER and WER helpers (holdout221, listed silent): ``targetBatch = targetBatch.cpu()``,
    ``trgts = list(torch.split(targetBatch, targetLenBatch.tolist()))``, then ``trgts[n].numpy()``
    for editdistance. The helper, called every step, computes on the host with the arrays: R48's
    numpy copy, read through the split (R195)."""
    for pieces in ("list(torch.split(targetBatch, targetLenBatch.tolist()))", "torch.chunk(targetBatch, 4)"):
        assert found(CER_HELPER.format(pieces=pieces, read="trgts[n].numpy()[:-1]")) == [], pieces


def test_a_copy_split_into_pieces_kept_as_tensors_stays_reported():
    """Pieces never made numpy arrays (kept as tensors, their lengths read) are no host work: the copy is
    reported, with the call chain that makes the helper run every step."""
    cpu = SYNC_TEMPLATE.format(what="`.cpu()`")
    source = CER_HELPER.format(pieces="list(torch.split(targetBatch, targetLenBatch.tolist()))", read="trgts[n]")
    assert found(source) == [("TPL102", 6, 18, cpu + " (called every step from train.py:20)")]


LOSS_DICT_MESSAGE = """\
import torch


def train(video_model, loader, optim_video):
    loss_fn = torch.nn.CrossEntropyLoss()
    for i_iter, (video, label) in enumerate(loader):
        loss = {{}}
        loss_bp = loss_fn(video_model(video.cuda()), label.cuda())
        loss["CE V"] = {stored}
        optim_video.zero_grad()
        loss_bp.backward()
        optim_video.step()
        msg = "train_iter={{}}".format(i_iter)
        for k, v in loss.items():
            msg += ",{{}}={{:.5f}}".format(k, v)
        print(msg)
"""


def test_an_empty_dict_filled_with_device_losses_hands_out_device_values():
    """The lip-reading trainer (holdout221): ``loss = {}``, ``loss['CE V'] = loss_bp``, then the
    progress message formats every ``v`` of ``loss.items()`` each step. The dict holds what was
    stored under its keys (R191), here a loss whose ``.backward()`` runs after the store: each value
    is a device tensor, and formatting it waits for the device (R196)."""
    assert found(LOSS_DICT_MESSAGE.format(stored="loss_bp")) == [("TPL102", 15, 19, FORMATTED)]


def test_an_empty_dict_filled_with_numbers_stays_silent():
    """Stored as Python numbers (``loss_bp.item()``: that ``.item()`` is the one sync), the values
    formatted are numbers."""
    item = SYNC_TEMPLATE.format(what="`.item()`")
    assert found(LOSS_DICT_MESSAGE.format(stored="loss_bp.item()")) == [("TPL102", 9, 23, item)]


def test_a_loss_whose_scaled_backward_runs_is_a_tensor():
    """The lip-reading trainer's ``scaler.scale(loss_bp).backward()`` (holdout221): stored in the loss
    dict before it, ``loss_bp`` was of unknown kind; the scaled backward says it is a tensor on the
    device, as ``loss_bp.backward()`` does (R197), so the dict's values are device losses (R196)."""
    scaled = LOSS_DICT_MESSAGE.replace("        loss_bp.backward()\n", "        scaler.scale(loss_bp).backward()\n")
    scaled = scaled.replace("def train(video_model, loader, optim_video):", "def train(video_model, loader, optim_video, scaler):")
    assert "scaler.scale(loss_bp)" in scaled
    assert found(scaled.format(stored="loss_bp")) == [("TPL102", 15, 19, FORMATTED)]


def test_the_scaled_backward_of_another_value_says_nothing_of_the_loss():
    """The scaled backward of a value not made from ``loss_bp`` leaves it of unknown kind: the dict's
    values are not known to be tensors, and formatting them is not reported."""
    other = LOSS_DICT_MESSAGE.replace("        loss_bp.backward()\n",
                                      "        scaler.scale(aux_loss(y_v)).backward()\n")
    other = other.replace("def train(video_model, loader, optim_video):", "def train(video_model, loader, optim_video, scaler):")
    other = other.replace("loss_bp = loss_fn(video_model(video.cuda()), label.cuda())",
                          "y_v = video_model(video.cuda())\n        loss_bp = loss_fn(y_v, label.cuda())")
    assert "aux_loss(y_v)" in other
    assert found(other.format(stored="loss_bp")) == []


PROFILING_SYNC = """\
import torch


def sync(device):
    # FIXME
    {end}
    # For correct profiling (cuda operations are async)
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def train(model, loader, optimizer, device):
    for x in loader:
        loss = model(x.to(device)).sum()
        sync(device)
        loss.backward()
        optimizer.step()
"""


def test_what_follows_a_return_or_raise_in_its_block_never_runs():
    """Multi-Singer's encoder ``sync`` (holdout225, listed silent): a bare ``return`` above the
    ``torch.cuda.synchronize`` kept for profiling. What follows ``return`` or ``raise`` in its block
    never runs, as after ``exit()`` (R146, R198): nothing there is reported."""
    for end in ("return", "return None", 'raise NotImplementedError("profiling off")'):
        assert found(PROFILING_SYNC.replace("{end}", end)) == [], end


def test_a_return_under_a_test_ends_nothing_after_the_test():
    """``if not profiling: return`` ends the function only when the test holds: the synchronize after
    it runs every step otherwise, and is reported with the call chain."""
    synchronize = SYNC_TEMPLATE.format(what="`torch.cuda.synchronize()`")
    source = PROFILING_SYNC.replace("{end}", "if device.type != 'cuda':\n        return")
    assert found(source) == [("TPL102", 10, 8, synchronize + " (called every step from train.py:16)")]


GAN_ACCUMULATION = """\
import torch
from torch.nn.parallel import DistributedDataParallel as DDP


def train(net_g, net_d, optim_g, optim_d, loader, accumulation_steps, rank):
    net_g = DDP(net_g, device_ids=[rank])
    net_d = DDP(net_d, device_ids=[rank])
    for global_step, (x, y) in enumerate(loader):
        y_hat = net_g(x.cuda())
        loss_disc = (net_d(y.cuda()) - net_d(y_hat.detach())).mean()
        optim_d.zero_grad()
        loss_disc.backward()
        optim_d.step()
        loss_gen = net_d(y_hat).mean() / accumulation_steps
        loss_gen.backward()
        if {test}:
            optim_g.step()
            optim_g.zero_grad()
"""
NO_SYNC = ("gradient accumulation on a DistributedDataParallel model: this backward runs every time round "
           "but the optimizer steps only every few rounds, and DDP all-reduces all gradients on each "
           "backward; run the forward and backward of the micro-batches that do not step under "
           "`with model.no_sync():` (DDP decides at the forward; one all-reduce per optimizer step) "
           "(runtime_guard: all-reduces per optimizer step observed)")


def test_a_generator_accumulating_beside_a_discriminator_stepping_every_batch_is_reported():
    """VISinger2 and whisper-vits-svc (holdout225): the discriminator's backward and step run every
    batch, the generator's backward every batch but its step only every ``accumulation_steps``. The
    rule asked that every step of the loop be under the interval and said nothing; the step each
    backward feeds, the first after it, decides (R199): the generator's backward is reported, the
    discriminator's is not."""
    assert found(GAN_ACCUMULATION.replace("{test}", "(global_step + 1) % accumulation_steps == 0"),
                 ("TPL207",)) == [("TPL207", 15, 8, NO_SYNC)]


def test_a_generator_stepping_every_batch_beside_the_discriminator_is_not_accumulation():
    """Both step every batch (the ``if`` is a setting, not an interval): nothing accumulates."""
    assert found(GAN_ACCUMULATION.replace("{test}", "rank >= 0"), ("TPL207",)) == []


NAN_CHECK = """\
import torch


def train(model, loader, optimizer, step):
    for batch in loader:
        losses = model(batch.cuda())
        for loss_value in list(losses.values()):
            if isinstance(loss_value, torch.Tensor) and torch.isnan(loss_value).any():
                {leave}
        loss = losses["loss"]
        loss.backward()
        optimizer.step()
"""


def test_a_nan_check_that_raises_in_a_loop_over_the_losses_is_reported():
    """polyffusion's learner (holdout225): ``for loss_value in list(losses.values()): if ... and
    torch.isnan(loss_value).any(): raise RuntimeError(...)`` every step. The inner loop runs no
    update, and a test that leaves such a loop was read as deciding where it stops (decoding's
    host-needed stop). A ``raise`` fails the run; it decides no stop, and the test waits for the
    device every step (R10's test; R200)."""
    truth = SYNC_TEMPLATE.format(what="testing a tensor's truth")
    for leave in ('raise RuntimeError(f"Detected NaN loss at step {step}")', "exit(1)"):
        assert found(NAN_CHECK.replace("{leave}", leave)) == [("TPL102", 8, 15, truth)], leave


def test_a_test_that_breaks_a_loop_running_no_update_still_decides_its_stop():
    """``break`` ends the inner loop as a decoding loop's stop test does: host-needed, silent."""
    assert found(NAN_CHECK.replace("{leave}", "break")) == []


SCALED_PREDICTIONS = """\
import numpy as np
import torch


@torch.no_grad()
def predict(model, loader, device, scaler):
    y, out = [], []
    for x_batch, y_batch in loader:
        x_batch = x_batch.to(device)
        y_batch = y_batch.to(device)
        out_batch = model(x_batch)
        out_batch = scaler.{method}(out_batch)
        out_batch = out_batch.cpu().numpy()
        y_batch = y_batch.cpu().numpy()
        out.append(out_batch)
        y.append(y_batch)
    return np.vstack(out), np.vstack(y)
"""


def test_a_data_scaler_s_transform_trains_nothing():
    """STAEformer's ``predict`` (holdout228): ``out_batch = SCALER.inverse_transform(out_batch)``. A
    call on a scaler-named receiver was read as a loss scaler stepping the optimizer, so the loop
    was a training loop and its kept copies reported; a data scaler's ``transform`` or
    ``inverse_transform`` trains nothing (R201), and the evaluation copies are R8's."""
    assert found(SCALED_PREDICTIONS.replace("{method}", "inverse_transform")) == []


def test_a_gradient_scaler_s_step_in_the_loop_still_trains():
    """``scaler.step(optimizer)`` in the same loop is a training step: the copies are reported."""
    cpu = SYNC_TEMPLATE.format(what="`.cpu()`")
    source = SCALED_PREDICTIONS.replace("{method}", "inverse_transform").replace(
        "        out.append(out_batch)\n", "        out.append(out_batch)\n        scaler.step(optimizer)\n").replace(
        "def predict(model, loader, device, scaler):", "def predict(model, loader, device, scaler, optimizer):")
    assert "scaler.step(optimizer)" in source
    assert [f[:2] for f in found(source)] == [("TPL102", 13), ("TPL102", 14)]


HOST_LOSS = """\
import numpy as np
import torch


def vali(model, loader, criterion):
    total_loss = []
    with torch.no_grad():
        for batch_x, batch_y in loader:
            pred = model(batch_x.cuda())
            true = batch_y.cuda()
            loss = criterion({pred}, {true})
            total_loss.append(loss.detach().item())
    return np.average(total_loss)
"""


def test_a_loss_of_host_copies_is_a_host_tensor():
    """Crossformer's ``vali`` (holdout228, listed silent): ``loss = criterion(pred.detach().cpu(),
    true.detach().cpu())``; a loss computes where its inputs are, here on the host, so its
    ``.item()`` waits for nothing (R202)."""
    assert found(HOST_LOSS.format(pred="pred.detach().cpu()", true="true.detach().cpu()")) == []


def test_a_loss_of_device_values_stays_reported():
    """The same loss of the device prediction (one operand on the device) is a device tensor."""
    item = SYNC_TEMPLATE.format(what="`.item()`")
    assert found(HOST_LOSS.format(pred="pred", true="true.detach().cpu()")) == [("TPL102", 12, 30, item)]


HASH_CODES = """\
import torch


def train(code_length, n, device):
    B = torch.randn(code_length, n).{op}.to(device)
    return B
"""


def test_the_sign_of_a_random_factory_is_a_fresh_host_tensor_moved():
    """DSDH's and DeepHash's hash codes (holdout229): ``torch.randn(code_length, N).sign().to(device)``.
    ``sign`` is an elementwise op, one value per value in a new host tensor (R45.10), as ``exp`` or
    ``abs`` already were (R203). No fix: an op stands between factory and move."""
    randn = CPU_CREATION_TEMPLATE.format(factory="randn")
    for op in ("sign()", "sgn()", "trunc()", "square()"):
        assert rule_diagnostics(HASH_CODES.replace("{op}", op), "TPL101") == [(5, 8, randn, None, None)], op


def test_an_op_that_mixes_values_or_reads_them_stays_silent():
    """``cumsum`` mixes the values and ``argmax`` reads them: the move is of another tensor's result."""
    for op in ("cumsum(0)", "argmax(0)"):
        assert rule_diagnostics(HASH_CODES.replace("{op}", op), "TPL101") == [], op


def test_a_loss_method_handed_the_raw_batch_stays_a_device_loss():
    """A loss method handed the loader's batch as it comes (``self.calc_loss(batch)``) may move it
    itself: its loss is not read as a host tensor, and testing it is reported (R202's limit)."""
    truth = SYNC_TEMPLATE.format(what="testing a tensor's truth")
    source = HOST_LOSS.format(pred="batch_x", true="batch_y").replace(
        "            loss.detach().item()", "            loss.detach().item()")
    source = source.replace("            total_loss.append(loss.detach().item())",
                            "            if torch.isnan(loss):\n                raise ValueError(\"nan\")")
    assert found(source) == [("TPL102", 12, 15, truth)]


def test_a_name_not_called_a_size_times_a_size_may_be_a_repeated_list():
    """``torch.LongTensor(labels * batch_size)``: ``labels`` may be a Python list the size repeats
    (data); only arithmetic whose every name is called a size is a number (R193)."""
    for size in ("opt.labels * opt.batchSize", "ids * n"):
        assert found(LABEL_BUFFERS.replace("{size}", size), ("TPL101",)) == [], size
