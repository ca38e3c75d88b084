# codes: TPL204
from mylib.data import DistributedSampler

sampler = DistributedSampler(ds)
