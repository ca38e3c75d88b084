"""TPL102 forms found on holdout7 (issue 20; holdout7 is tuned from here on, after its first score):
values the host must have (the lead's reading R3, host-needed wins; rules.md "Where a value lives"
and "A step body"), and reads that wait for nothing the test before them did not. Whole
diagnostics; each form with its silent twin and its flagged twin."""

from __future__ import annotations

from _diagnostics import rule_diagnostics as diagnostics

SYNC = ("{what} waits for the device in every iteration; keep values on the device "
        "(`total += loss.detach()`) and sync once after the loop or every N steps (runtime_guard: sync report)")
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
            if torch.min(y) < -1.0:
                print(f"[WARNING] Min value is {torch.min(y)}")
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
    """sam2's ``if not math.isfinite(loss.item()): error_msg = f"Loss is {loss.item()}"``,
    BigVGAN's ``if torch.min(y) < -1.0: print(f"... {torch.min(y)}")``, DiffDock's
    ``if num_nans > 0: logger.warning(f"{num_nans} / ...")``: the test is the per-step sync
    (reported); the branch reads the same value right after it, with nothing new queued on the
    device (host-only statements between), so that read waits for nothing the test did not."""
    assert diagnostics(WARNING, "TPL102") == [(7, 29, ITEM, None, None), (12, 11, TRUTH, None, None),
                                              (15, 11, TRUTH, None, None)]


def test_a_message_that_reads_another_value_or_reads_after_device_work_still_syncs():
    """Flagged twins: the branch formats a value its test did not read (``loss`` under a test of
    ``y``), device work comes between the test and the read (``y = model(...)`` rebinds it; a
    model call queues work)."""
    source = (WARNING.replace('print(f"[WARNING] Min value is {torch.min(y)}")',
                              'print(f"[WARNING] loss is {loss}")')
              .replace('where = batch["name"]', "y = model(batch.cuda())")
              .replace('error_msg = f"Loss is {loss.item()}, skipping the batch"\n',
                       'model.reset()\n                error_msg = f"Loss is {loss.item()}, skipping the batch"\n'))
    assert diagnostics(source, "TPL102") == [
        (7, 29, ITEM, None, None), (9, 35, ITEM, None, None), (13, 11, TRUTH, None, None),
        (14, 12, PRINT, None, None), (16, 11, TRUTH, None, None), (20, 37, FORMAT, None, None)]
