# codes: TPL603
import torch

with torch.profiler.profile(record_shapes=True) as prof:
    for step, (x, y) in enumerate(loader):
        criterion(model(x), y).backward()
        optimizer.step()
        if step >= 5:
            break
prof.export_chrome_trace("trace.json")
with torch.profiler.profile() as prof:
    criterion(model(x), y).backward()      # one step, no loop
