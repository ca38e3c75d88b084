# codes: TPL205
import torch as T
from torch import nn

a = nn.parallel.DistributedDataParallel(a, find_unused_parameters=True)  # expect: TPL205
b = T.nn.parallel.DistributedDataParallel(b, device_ids=[0], find_unused_parameters=True)  # expect: TPL205
