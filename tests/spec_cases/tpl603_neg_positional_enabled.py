# codes: TPL603
import torch
from torch.profiler import record_function


def train(model, loader, optimizer, args, use_gpu):
    with torch.autograd.profiler.profile(args.enable_profiling, use_gpu, record_shapes=True) as prof:
        for x, y in loader:
            with record_function("forward"):
                loss = model(x, y)
            loss.backward()
            optimizer.step()
    with torch.autograd.profiler.emit_nvtx(args.nvtx):
        for x, y in loader:
            model(x, y).backward()
            optimizer.step()
