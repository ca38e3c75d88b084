# codes: TPL202
import torch as T

blocks = [T.nn.Conv2d(3, 16, 3), T.nn.BatchNorm2d(16)]
model = T.nn.Sequential(*blocks).cuda()
model = T.nn.parallel.DistributedDataParallel(model, device_ids=[0])  # expect: TPL202
