# codes: TPL101,TPL102,TPL103,TPL201,TPL601,TPL602
import time

import torch
from torch.nn import DataParallel as DP

model = DP(build_model()).cuda()  # expect: TPL201
model.eval()
x = torch.randn(64, 3, 224, 224).cuda()  # expect: TPL101
timings = []
for _ in range(50):
    t0 = time.perf_counter()
    y = model(x)  # expect: TPL602
    torch.cuda.synchronize()  # brackets the timer read below: host-needed (rules.md, revised 2026-11-25)
    timings.append(time.perf_counter() - t0)
torch.cuda.empty_cache()
print(sum(timings) / len(timings))
