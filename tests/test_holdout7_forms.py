"""TPL102 forms found on holdout7 (issue 20; holdout7 is tuned from here on, after its first score):
values the host must have (the lead's reading R3, host-needed wins; rules.md "Where a value lives"
and "A step body"), and reads that wait for nothing the test before them did not. Whole
diagnostics; each form with its silent twin and its flagged twin."""

from __future__ import annotations

from _diagnostics import SYNC_TEMPLATE as SYNC, rule_diagnostics as diagnostics

CPU = SYNC.format(what="`.cpu()`")
ITEM = SYNC.format(what="`.item()`")
NONZERO = SYNC.format(what="`.nonzero()`")
TRUTH = SYNC.format(what="testing a tensor's truth")
PRINT = SYNC.format(what="printing a tensor")
FORMAT = SYNC.format(what="formatting a tensor")

SIZES = """
    import torch
    import torch.nn.functional as F
    def train(model, loader, optimizer):
        for batch in loader:
            x, mask = model(batch.cuda())
            n = mask.sum().long().item()
            pos = torch.linspace(0, 10, n, device=x.device)
            emb = F.interpolate(x, size=n)
            (emb.sum() + pos.sum()).backward()
            optimizer.step()
    """


def test_a_number_of_points_and_an_output_size_are_sizes():
    """e2-tts: ``torch.linspace``'s ``steps`` and ``F.interpolate``'s ``size`` size the result:
    torch reads them on the host (R3: a size is host-needed), here through a name."""
    assert diagnostics(SIZES, "TPL102") == []
    assert diagnostics(SIZES.replace("pos = torch.linspace(0, 10, n, device=x.device)",
                                     "pos = torch.linspace(0, 10, steps=n, device=x.device)")
                       .replace("emb = F.interpolate(x, size=n)", "emb = x"), "TPL102") == []
    assert diagnostics(SIZES.replace("pos = torch.linspace(0, 10, n, device=x.device)", "pos = x")
                       .replace("emb = F.interpolate(x, size=n)", "emb = F.interpolate(x, n)"), "TPL102") == []


def test_the_same_number_used_as_an_end_point_still_syncs():
    """Flagged twin: ``linspace``'s end point and ``interpolate``'s scale factor are values, not
    sizes: torch takes them as tensors or numbers the device could keep."""
    source = (SIZES.replace("pos = torch.linspace(0, 10, n, device=x.device)",
                            "pos = torch.linspace(0, n, 10, device=x.device)")
              .replace("emb = F.interpolate(x, size=n)", "emb = F.interpolate(x, scale_factor=n)"))
    assert diagnostics(source, "TPL102") == [(7, 12, ITEM, None, None)]


WARNING = """
    import math
    import torch
    def train(model, loader, optimizer, log):
        for batch in loader:
            loss = model(batch.cuda())
            if not math.isfinite(loss.item()):
                error_msg = f"Loss is {loss.item()}, skipping the batch"
                log.error(error_msg)
                continue
            y = model(batch.cuda())
            low = torch.min(y)
            if low < -1.0:
                print(f"[WARNING] Min value is {low}")
            num_nans = torch.sum(torch.isnan(y))
            if num_nans > 0:
                where = batch["name"]
                if isinstance(where, list):
                    where = where[0]
                log.warning(f"{where}: " f"{num_nans} / {y.numel()} samples failed")
            loss.backward()
            optimizer.step()
    """


def test_a_message_that_repeats_the_value_its_test_waited_for_is_not_another_stall():
    """sam2's ``if not math.isfinite(loss.item()): error_msg = f"Loss is {loss.item()}"``, DiffDock's
    ``if num_nans > 0: logger.warning(f"{num_nans} / ...")``, a printed minimum taken once: the
    test is the per-step sync (reported); the message reads the same, already computed value right
    after it, with nothing new queued on the device (host-only statements between), so that read
    waits for nothing the test did not."""
    assert diagnostics(WARNING, "TPL102") == [(7, 29, ITEM, None, None), (13, 11, TRUTH, None, None),
                                              (16, 11, TRUTH, None, None)]


def test_a_message_that_reads_another_value_or_reads_after_device_work_still_syncs():
    """Flagged twins: the branch formats a value its test did not read (``loss`` under a test of
    ``low``), device work comes between the test and the read (``y = model(...)`` rebinds it; a
    model call queues work), and the message computes the tested reduction again (vits' and
    BigVGAN's ``if torch.min(y) < -1: print(..., torch.min(y))``: a new kernel the host waits
    for; holdout3 judged vits' print true)."""
    recomputed = WARNING.replace("low = torch.min(y)\n            if low < -1.0:\n                "
                                 'print(f"[WARNING] Min value is {low}")',
                                 'if torch.min(y) < -1.0:\n                print(f"[WARNING] Min value is {torch.min(y)}")')
    assert diagnostics(recomputed, "TPL102") == [(7, 29, ITEM, None, None), (12, 11, TRUTH, None, None),
                                                 (13, 12, PRINT, None, None), (15, 11, TRUTH, None, None)]
    source = (WARNING.replace('print(f"[WARNING] Min value is {low}")',
                              'print(f"[WARNING] loss is {loss}")')
              .replace('where = batch["name"]', "y = model(batch.cuda())")
              .replace('error_msg = f"Loss is {loss.item()}, skipping the batch"\n',
                       'model.reset()\n                error_msg = f"Loss is {loss.item()}, skipping the batch"\n')
              # (bound tests, not failure tests: a message in a branch taken only on a non-finite
              # value is no per-step work at all, prec9's R10; this twin is about re-reads)
              .replace("if not math.isfinite(loss.item()):", "if loss.item() > 1e4:")
              .replace("if num_nans > 0:", "if num_nans > 3:"))
    assert diagnostics(source, "TPL102") == [
        (7, 11, ITEM, None, None), (9, 35, ITEM, None, None), (14, 11, TRUTH, None, None),
        (15, 12, PRINT, None, None), (17, 11, TRUTH, None, None), (21, 37, FORMAT, None, None)]


NUMPY = """
    import numpy as np
    import torch
    def train(model, loader, optimizer, stats):
        for batch in loader:
            graphs, loss = model(batch.cuda())
            loss.backward()
            optimizer.step()
            keep = torch.not_equal(graphs[0].x[:, 0], 0).cpu().numpy()
            pos = np.asarray([g.pos.cpu().numpy()[keep] for g in graphs])
            stats.append(np.sqrt((pos ** 2).sum()))
            labels = loss.cpu().numpy()
            for r in range(10):
                cluster = np.where(labels == r)[0]
                stats[r] += cluster.shape[0]
    """


def test_copies_that_numpy_reads_through_a_list_a_comparison_or_an_index_are_host_needed():
    """DiffDock's ``np.asarray([g.pos.cpu().numpy()[keep] for g in graphs])`` (the items of the
    list numpy is handed), its mask ``keep`` (an index of a numpy array: numpy indexes on the
    host), benchmarking-gnns' ``np.where(labels == r)`` (an array compared elementwise and handed
    to numpy): numpy consumers (R3)."""
    assert diagnostics(NUMPY, "TPL102") == []


def test_the_same_copies_summed_or_indexing_a_tensor_still_sync():
    """Flagged twins: the list goes to ``sum`` (Python), the mask indexes a tensor, and the
    compared array only feeds a count the device could keep."""
    source = (NUMPY.replace("pos = np.asarray([g.pos.cpu().numpy()[keep] for g in graphs])",
                            "pos = sum([g.pos.cpu() for g in graphs]) + graphs[0].pos[keep]")
              .replace("stats.append(np.sqrt((pos ** 2).sum()))", "stats.append(pos)")
              .replace("cluster = np.where(labels == r)[0]", "cluster = (labels == r)"))
    assert diagnostics(source, "TPL102") == [(9, 15, CPU, None, None), (10, 19, CPU, None, None),
                                             (12, 17, CPU, None, None)]


REPLAY = """
    import numpy as np
    import torch

    class PrioritizedReplayBuffer:
        def __init__(self, size):
            self.max_priority = 1.0

        def update_priorities(self, indices, priorities):
            priorities = np.abs(priorities) + 1e-6
            self.max_priority = max(self.max_priority, priorities.max())

        def remember(self, indices, priorities):
            self.last = priorities

    if __name__ == "__main__":
        rb = PrioritizedReplayBuffer(1000)
        model = torch.nn.Linear(4, 1).cuda()
        optimizer = torch.optim.Adam(model.parameters())
        for step in range(1000):
            data = rb.sample()
            loss_per_sample = model(data.observations).squeeze()
            loss = loss_per_sample.mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            new_priorities = loss_per_sample.detach().cpu().numpy()
            rb.update_priorities(data.indices, new_priorities)
    """


def test_a_copy_handed_to_a_method_that_hands_it_to_numpy_is_host_needed():
    """cleanrl's prioritized replay: ``rb`` is an instance of a class of the file, whose
    ``update_priorities`` hands the parameter the copy binds (past ``self``) to ``np.abs``."""
    assert diagnostics(REPLAY, "TPL102") == []


def test_a_copy_handed_to_a_method_that_keeps_it_still_syncs():
    """Flagged twin: the method only keeps the array; nothing on the host reads it."""
    source = REPLAY.replace("rb.update_priorities(data.indices, new_priorities)",
                            "rb.remember(data.indices, new_priorities)")
    assert diagnostics(source, "TPL102") == [(27, 25, CPU, None, None)]


INDEX = """
    import numpy as np
    import torch
    def index(model, loader, sparse_index):
        count = 0
        with torch.no_grad():
            for batch in loader:
                reps = model(batch.cuda())
                row, col = torch.nonzero(reps, as_tuple=True)
                data = reps[row, col]
                row = row + count
                count += len(batch)
                sparse_index.add(row.cpu().numpy(), col.cpu().numpy(), data.cpu().numpy())
    """


def test_nonzero_indices_that_evaluation_copies_to_the_host_are_results():
    """splade's indexing loop (trains nothing): ``torch.nonzero(reps, as_tuple=True)`` gives the
    indices that the loop then copies to the host (R8: evaluation brings its results to the
    host; that copy waits for the ``nonzero`` anyway)."""
    assert diagnostics(INDEX, "TPL102") == []


def test_nonzero_indices_kept_on_the_device_or_in_a_training_loop_still_sync():
    """Flagged twins: neither the indices nor what they pick reach the host (the values picked stay
    on the device; R44.4 since the seventeenth session: values picked and then copied are the
    results evaluation brings to the host, as the indices are), and the same loop when it trains
    (R8 does not apply: its copies are flagged too)."""
    kept = INDEX.replace("sparse_index.add(row.cpu().numpy(), col.cpu().numpy(), data.cpu().numpy())",
                         "sparse_index.add(data)")
    assert diagnostics(kept, "TPL102") == [(9, 23, NONZERO, None, None)]
    training = INDEX.replace("count += len(batch)", "count += len(batch); reps.sum().backward()")
    assert diagnostics(training, "TPL102") == [(9, 23, NONZERO, None, None), (13, 29, CPU, None, None),
                                               (13, 48, CPU, None, None), (13, 67, CPU, None, None)]


COPIES = """
    import copy
    import torch
    from torch.utils.data import DataLoader
    def evaluate(model, dataset, n, pdbs):
        test_loader = DataLoader(dataset, batch_size=1)
        for orig in test_loader:
            data_list = [copy.deepcopy(orig) for _ in range(n)]
            for graph in data_list:
                pdbs.add((graph["ligand"].pos + graph.center).detach().cpu())
            one = copy.deepcopy(orig)
            print(one.pos.cpu())
            out = model(data_list)
            out.sum().backward()
    """


def test_deep_copies_of_a_batch_never_moved_are_on_the_host():
    """DiffDock's ``data_list = [copy.deepcopy(orig_complex_graph) for _ in range(N)]`` of a
    loader batch that nothing moved: a copy lives where what it copies lives, and so does each
    item of a list of such copies (rules.md "Where a value lives")."""
    assert diagnostics(COPIES, "TPL102") == []


def test_deep_copies_of_a_moved_batch_or_of_each_item_still_sync():
    """Flagged twins: the copies are moved to the device (``.cuda()``), or the list copies items
    the linter does not know (``[copy.deepcopy(g) for g in graphs]`` of a parameter)."""
    moved = (COPIES.replace("data_list = [copy.deepcopy(orig) for _ in range(n)]",
                            "data_list = [copy.deepcopy(orig).cuda() for _ in range(n)]")
             .replace("one = copy.deepcopy(orig)", "one = copy.deepcopy(orig.cuda())"))
    assert diagnostics(moved, "TPL102") == [(10, 21, CPU, None, None), (12, 14, CPU, None, None)]
    unknown = COPIES.replace("def evaluate(model, dataset, n, pdbs):", "def evaluate(model, dataset, graphs, pdbs):").replace(
        "data_list = [copy.deepcopy(orig) for _ in range(n)]", "data_list = [copy.deepcopy(g) for g in graphs]")
    assert diagnostics(unknown, "TPL102") == [(10, 21, CPU, None, None)]


def test_indices_computed_in_a_warning_branch_are_no_re_read():
    """Flagged twin of the warning branch (trl's reward check, a development-set label): the branch
    computes something new from the tested value (``.nonzero()`` finds the rows, and the host
    waits for their count), so it waits for work the test did not."""
    source = """
        import torch
        def train(model, loader, optimizer, log):
            for batch in loader:
                rewards = model(batch.cuda())
                if torch.isnan(rewards).all(dim=1).any():
                    row = torch.isnan(rewards).all(dim=1).nonzero(as_tuple=True)[0][0]
                    log.warning(row)
                rewards.sum().backward()
                optimizer.step()
        """
    assert diagnostics(source, "TPL102") == [(6, 11, TRUTH, None, None), (7, 18, NONZERO, None, None)]


def test_a_value_taken_for_use_under_its_finiteness_test_still_syncs():
    """Flagged twin (wenet's cross-validation, a holdout4 label): ``if torch.isfinite(v):
    total += v.item()`` takes the number to sum it every step; only a message (printed or
    formatted) that repeats the tested value is left alone."""
    source = """
        import torch
        def train(model, loader, optimizer, totals):
            for batch in loader:
                losses = model(batch.cuda())
                for name, value in losses.items():
                    if torch.isfinite(value):
                        totals[name] += value.item()
                losses["loss"].backward()
                optimizer.step()
        """
    assert diagnostics(source, "TPL102") == [(7, 15, TRUTH, None, None), (8, 32, ITEM, None, None)]
