# codes: TPL101
import torch

device = torch.device("cuda")
x = torch.zeros(3, 3, device=device)
y = torch.randn(4, 4, device="cuda", dtype=torch.float16)
z = torch.ones(2, device=device).to(device)
