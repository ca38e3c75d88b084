# codes: TPL401
import torch

torch.backends.cudnn.benchmark = True
torch.backends.cudnn.enabled = True
