# codes: TPL101
import torch


def batches(shape, local_rank, n):
    for _ in range(n):
        noise = torch.randn(  # expect: TPL101
            *shape,
            dtype=torch.float32,
        ).to(local_rank)
        labels = torch.zeros(shape[0])  # expect: TPL101
        yield noise, labels.cuda()
