# codes: TPL101
import torch

a = torch.zeros(3, 3).to(torch.float16)
b = torch.ones(3).to(dtype=torch.bfloat16)
c = torch.randn(3).cpu()
d = torch.arange(5).to("cpu")
