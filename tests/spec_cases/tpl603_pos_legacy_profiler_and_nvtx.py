# codes: TPL603
import torch

if __name__ == "__main__":
    torch.autograd.set_detect_anomaly(mode=True)  # expect: TPL603
    with torch.autograd.profiler.emit_nvtx():  # expect: TPL603
        for x, y in loader:
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
    with torch.autograd.profiler.profile(use_cuda=True) as prof:  # expect: TPL603
        while not done:
            loss = criterion(model(next(it)), target)
            loss.backward()
            optimizer.step()
