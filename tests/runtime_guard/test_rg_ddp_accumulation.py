"""TPL207 at run time: gradient all-reduces per optimizer step of a DDP model, under a real
2-process torchrun (gloo on CPU). The script also counts DDP's own all-reduces with a comm hook:
the guard's numbers must equal them."""
import os

import torch

from _rg_helpers import SCRIPTS, run_torchrun

SCRIPT = os.path.join(SCRIPTS, "ddp_accumulation_train.py")


def _run(tmp_path, **env):
    """Run the script; a torch shutdown abort after both ranks wrote their results is not ours."""
    for attempt in range(2):
        try:
            run_torchrun(SCRIPT, OUT_DIR=tmp_path, **env)
            break
        except AssertionError:
            if all(os.path.exists(os.path.join(tmp_path, f"rank{r}.pt")) for r in (0, 1)):
                break
            if attempt:
                raise
    return [torch.load(os.path.join(tmp_path, f"rank{r}.pt"), weights_only=False) for r in (0, 1)]


def test_accumulation_without_no_sync_is_reported(tmp_path):
    ranks = _run(tmp_path, ACCUM=4, STEPS=3)
    for r in ranks:
        assert r["comm_hook_per_step"] == [4, 4, 4]  # DDP really all-reduced on every backward
        (location, counts), = r["per_step"].items()
        assert counts == [4, 4, 4]
        # The first training forward, not the no_grad evaluation forward before it.
        assert location.endswith("ddp_accumulation_train.py:50")
        events = [e for e in r["events"] if e[0] == "TPL207"]
        assert len(events) == 1
        code, action, where, count, detail = events[0]
        assert (action, where, count) == ("observed", location, 9)  # 12 all-reduces, 3 needed
        assert detail == ("gradient accumulation on DistributedDataParallel: 12 gradient "
                          "all-reduces over 3 optimizer steps (4 per step, at most 4); only the "
                          "last before each step is needed: run the other forward and backward "
                          "passes under `with model.no_sync():` to skip 9 full gradient exchanges")
    for a, b in zip(ranks[0]["params"], ranks[1]["params"]):
        assert torch.equal(a, b)


def test_accumulation_under_no_sync_is_not_reported(tmp_path):
    ranks = _run(tmp_path, ACCUM=4, STEPS=3, NO_SYNC=1)
    for r in ranks:
        assert r["comm_hook_per_step"] == [1, 1, 1]
        assert list(r["per_step"].values()) == [[1, 1, 1]]
        assert not [e for e in r["events"] if e[0] == "TPL207"]
