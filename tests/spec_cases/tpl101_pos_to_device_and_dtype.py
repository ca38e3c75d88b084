# codes: TPL101
import torch

device = "cuda"
anchors = torch.ones(9, 4).to(device, dtype=torch.float16)  # expect: TPL101
