# codes: TPL603
import torch
from torch.profiler import ProfilerActivity, profile


def train(model, loader, optimizer):
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True) as prof:  # expect: TPL603
        for epoch in range(100):
            for x, y in loader:
                loss = torch.nn.functional.cross_entropy(model(x), y)
                loss.backward()
                optimizer.step()
    print(prof.key_averages().table())
