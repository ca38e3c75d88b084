# codes: TPL101
import torch


def positions(x):
    seq_len = x.shape[1]
    pos = torch.arange(seq_len).to(x.device)  # expect: TPL101
    return pos.unsqueeze(0).expand(x.shape[0], -1)
