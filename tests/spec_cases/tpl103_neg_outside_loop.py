# codes: TPL103
import gc
import torch


def free_memory():
    gc.collect()
    torch.cuda.empty_cache()


for x in loader:
    train_step(x)
free_memory_after = torch.cuda.empty_cache()
