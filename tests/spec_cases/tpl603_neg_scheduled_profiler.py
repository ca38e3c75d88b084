# codes: TPL603
import torch
from torch.profiler import profile, schedule, tensorboard_trace_handler

with profile(
    schedule=schedule(wait=1, warmup=1, active=3, repeat=1),
    on_trace_ready=tensorboard_trace_handler("./log"),
) as prof:
    for x, y in loader:
        criterion(model(x), y).backward()
        optimizer.step()
        prof.step()
