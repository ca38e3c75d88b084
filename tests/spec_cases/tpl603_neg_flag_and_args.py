# codes: TPL603
import os
import torch

torch.autograd.set_detect_anomaly(args.detect_anomaly)
torch.autograd.set_detect_anomaly(os.environ.get("DEBUG") == "1")
if args.debug:
    torch.autograd.set_detect_anomaly(True)
if os.environ.get("ANOMALY"):
    torch.autograd.set_detect_anomaly(True)
torch.autograd.set_detect_anomaly(False)
for x, y in loader:
    criterion(model(x), y).backward()
    optimizer.step()
