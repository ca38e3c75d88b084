"""The end of a gloo run, as the test scripts that make their own process group write it.

A gloo worker thread that drops the last reference to a finished collective takes the GIL; if it
asks once the interpreter is finalizing, the rank aborts ("terminate called without an active
exception", about 1 run in 30 on this machine, hand-written DDP as much as guarded runs). The guard
does the same for a group it started (runtime_guard/fixes/ddp.py ``_destroy_group``)."""
import gc
import time

import torch.distributed as dist


def destroy_group_and_settle():
    if dist.is_initialized():
        dist.destroy_process_group()
    gc.collect()
    time.sleep(0.05)  # yield the GIL so the group's threads finish before finalization
