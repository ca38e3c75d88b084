# codes: TPL201
import torch
from torch.nn import DataParallel as DP

net = DP(Net(), device_ids=[0, 1])  # expect: TPL201
