# codes: TPL101
import torch

factory_kwargs = {"device": "cuda", "dtype": torch.float32}
w = torch.empty(64, 64, **factory_kwargs).cuda()
