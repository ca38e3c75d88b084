# codes: TPL102
import time
import torch as T

step = 0
while step < 100:
    t0 = time.time()
    out = model(batch)
    out.sum().backward()
    opt.step()
    T.cuda.synchronize()  # expect: TPL102
    step += 1
