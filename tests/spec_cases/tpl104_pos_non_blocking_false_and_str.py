# codes: TPL104
import torch
from torch.utils.data import DataLoader as DL

loader = DL(ds, batch_size=32, num_workers=2, pin_memory=True)
for batch in loader:
    inputs = batch["input"].to("cuda", non_blocking=False)  # expect: TPL104
    target = batch["target"].to("cuda")  # expect: TPL104
    out = model(inputs)
