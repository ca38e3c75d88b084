# codes: TPL201
import torch
from torch import nn

model = build_model()
if torch.cuda.device_count() > 1:
    model = nn.DataParallel(model)  # expect: TPL201
model.to("cuda")
