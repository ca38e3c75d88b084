# codes: TPL201
import torch.nn.parallel
from torch.nn.parallel import DataParallel
import torch as T

a = torch.nn.parallel.DataParallel(encoder)  # expect: TPL201
b = DataParallel(decoder)  # expect: TPL201
c = T.nn.DataParallel(head)  # expect: TPL201
