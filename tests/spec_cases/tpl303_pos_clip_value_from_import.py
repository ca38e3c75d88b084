# codes: TPL303
import torch
from torch.nn.utils import clip_grad_value_

scaler = torch.amp.GradScaler("cuda")


def step(model, batch, optimizer):
    with torch.autocast("cuda"):
        loss = model(**batch).loss
    scaler.scale(loss).backward()
    clip_grad_value_(model.parameters(), 0.5)  # expect: TPL303
    scaler.step(optimizer)
    scaler.update()
