# codes: TPL201
from mxnet_compat import nn

model = nn.DataParallel(net)
