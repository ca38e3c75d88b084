"""Mixed precision and cuDNN pitfalls (TPL301-TPL304, TPL401, and the opt-in TPL601), and anomaly
detection left on after hunting a float16 NaN (TPL603)."""
import torch
import torch.nn as nn
from torch.cuda.amp import autocast

torch.backends.cudnn.deterministic = True
torch.backends.cudnn.benchmark = True
torch.autograd.set_detect_anomaly(True)

model = nn.Sequential(nn.Linear(128, 128), nn.GELU(), nn.Linear(128, 10)).cuda()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
projection = torch.randn(128, 64, device="cuda")
basis = torch.randn(64, 64, device="cuda")


def train_step(x, y):
    optimizer.zero_grad()
    with torch.autocast("cuda", dtype=torch.float16):
        loss = nn.functional.cross_entropy(model(x), y)
    loss.backward()
    optimizer.step()
    return loss.detach()


def features(x):
    return x @ projection @ basis @ basis.T


def legacy_step(x, y):
    with autocast():
        loss = nn.functional.cross_entropy(model(x), y)
    loss.backward()
    optimizer.step()
