# codes: TPL603
import torch

# An inference benchmark: nothing here trains, so profiling every step is the point.
torch.autograd.set_detect_anomaly(True)
with torch.profiler.profile() as prof:
    with torch.no_grad():
        for x in loader:
            model(x)
print(prof.key_averages().table(sort_by="cuda_time_total"))
