# codes: TPL103
import torch as T

it = 0
while it < max_iters:
    out = net(next(batches))
    T.cuda.empty_cache()  # expect: TPL103
    it += 1
