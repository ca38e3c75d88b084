# codes: TPL101
from torch import ones

mask = ones(8, 8).to("cuda:0")  # expect: TPL101
