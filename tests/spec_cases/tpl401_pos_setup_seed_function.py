# codes: TPL401
import random

import numpy as np
import torch
import torch.backends.cudnn as cudnn


def setup_seed(seed):
    np.random.seed(seed)
    random.seed(seed)
    torch.manual_seed(seed)  # cpu
    torch.cuda.manual_seed_all(seed)
    cudnn.benchmark = True  # expect: TPL401
    cudnn.deterministic = True
