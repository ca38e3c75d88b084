# codes: TPL401
import random

import numpy as np
import torch

torch.manual_seed(0)
torch.backends.cudnn.deterministic = True
torch.backends.cudnn.benchmark = True  # expect: TPL401
