# codes: TPL103
import torch


def find_batch_size(model, sizes):
    for bs in sizes:
        ok = try_batch(model, bs)
        if not ok:
            torch.cuda.empty_cache()
            break
    for bs in sizes:
        if too_big(bs):
            torch.cuda.empty_cache()
            return bs
    while True:
        if failed():
            torch.cuda.empty_cache()
            raise RuntimeError("out of memory")
