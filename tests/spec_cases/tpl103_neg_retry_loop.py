# codes: TPL103
import torch


def benchmark(bench_fn, batch_size):
    while batch_size:
        try:
            torch.cuda.empty_cache()
            return bench_fn(model(batch_size))
        except RuntimeError:
            batch_size //= 2
    for attempt in range(3):
        torch.cuda.empty_cache()
        try:
            out = model(inputs)
            break
        except torch.cuda.OutOfMemoryError:
            inputs = inputs[: len(inputs) // 2]
