# codes: TPL304
import torch as T

with T.cpu.amp.autocast(dtype=T.bfloat16):  # expect: TPL304
    y = net(x)
scaler = T.cuda.amp.GradScaler(init_scale=2.0**14)  # expect: TPL304
