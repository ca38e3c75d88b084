# codes: TPL101
import cupy
from mylib import tensor, zeros

a = zeros(4).cuda()
b = tensor([1, 2, 3]).cuda()
