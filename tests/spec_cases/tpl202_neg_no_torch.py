# codes: TPL202
import paddle.nn as nn
from paddle import DataParallel as DistributedDataParallel

model = nn.Sequential(nn.Conv2D(3, 8, 3), nn.BatchNorm2D(8))
model = DistributedDataParallel(model)
