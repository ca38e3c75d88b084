# codes: TPL101
import math

import torch


def build(batch_size, n, i, x, device, data):
    eta = torch.FloatTensor(batch_size, 1, 1, 1).uniform_(0, 1).to(device)  # expect: TPL101
    ids = torch.LongTensor([i]).cuda()  # expect: TPL101
    buf = torch.Tensor(n, 3).to(x.device)  # expect: TPL101
    low = torch.tensor(float("-inf")).to(x.device)  # expect: TPL101
    pi = torch.tensor(math.pi).cuda()  # expect: TPL101
    unknown = torch.Tensor(data).cuda()  # data or a size: cannot tell
    host = torch.FloatTensor(n, 3)  # not moved
    ready = torch.cuda.LongTensor([i])  # made on the device
    return eta, ids, buf, low, pi, unknown, host, ready
