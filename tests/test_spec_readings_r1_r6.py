"""The lead's spec readings R1-R6 of 2026-11-26 (docs/precision.md, "Spec readings R1-R6 and
precision") and the plain-script readings that came with them: whole diagnostics (line, column,
message, fix and its applicability), each form with its flagged twin and its silent twin."""

from __future__ import annotations

from _diagnostics import rule_diagnostics as diagnostics

SYNC = ("{what} waits for the device in every iteration; keep values on the device "
        "(`total += loss.detach()`) and sync once after the loop or every N steps (runtime_guard: sync report)")
ITEM = SYNC.format(what="`.item()`")
CPU = SYNC.format(what="`.cpu()`")
NUMPY = SYNC.format(what="`.numpy()`")
SYNCHRONIZE = SYNC.format(what="`torch.cuda.synchronize()`")


# ---- a bare .numpy() reads a host tensor ---------------------------------------------------------
def test_tpl102_a_bare_numpy_reads_a_tensor_that_is_on_the_host():
    """torch raises on ``.numpy()`` of a device tensor ("can't convert cuda:0 device type tensor to
    numpy"): what a bare ``.numpy()`` reads is on the host, and nothing waits (YOLOX's boxes after
    a project helper; the copy is the ``.cpu()`` before it, reported by itself)."""
    source = """
        import torch
        def evaluate(model, loader, to_xywh, results):
            for imgs, _ in loader:
                out = model(imgs.cuda())
                boxes = to_xywh(out[:, :4])
                results.append(boxes.numpy())
                results.append(boxes.detach().numpy())
        """
    assert diagnostics(source, "TPL102") == []


def test_tpl102_numpy_with_force_copies_from_the_device():
    """Flagged twins: ``.numpy(force=True)`` copies a device tensor to the host (a sync), and the
    ``.cpu()`` in ``.cpu().numpy()`` is the copy; ``force=flag`` of a value the linter cannot see
    stays silent."""
    source = """
        import torch
        def evaluate(model, loader, flag, results):
            for imgs, _ in loader:
                out = model(imgs.cuda())
                results.append(out.numpy(force=True))
                results.append(out.cpu().numpy())
                results.append(out.numpy(force=flag))
        """
    assert diagnostics(source, "TPL102") == [
        (6, 23, NUMPY, None, None),
        (7, 23, CPU, None, None),
    ]
