# codes: TPL900
import torch

x = torch.zeros(3, device="cuda")
