# codes: TPL205
from fairscale_like import DistributedDataParallel

model = DistributedDataParallel(model, find_unused_parameters=True)
