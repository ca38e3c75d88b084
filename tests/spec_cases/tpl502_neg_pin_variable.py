# codes: TPL502
import torch
from torch.utils.data import DataLoader

use_cuda = torch.cuda.is_available()
loader = DataLoader(ds, batch_size=32, num_workers=4, pin_memory=use_cuda)
for x, y in loader:
    x = x.cuda()
