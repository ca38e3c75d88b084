# codes: TPL603
import contextlib
import torch

profiler = torch.profiler.profile() if args.profile else contextlib.nullcontext()
with profiler:
    for x, y in loader:
        criterion(model(x), y).backward()
        optimizer.step()
with (torch.autograd.detect_anomaly() if args.debug else contextlib.nullcontext()):
    for x, y in loader:
        criterion(model(x), y).backward()
        optimizer.step()
with torch.profiler.profile(enabled=args.profile) as prof:
    for x, y in loader:
        criterion(model(x), y).backward()
        optimizer.step()
