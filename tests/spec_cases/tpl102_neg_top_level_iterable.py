# codes: TPL102
import torch

scores = torch.rand(100)
for idx in (scores > 0.5).nonzero().tolist():
    print(idx)
