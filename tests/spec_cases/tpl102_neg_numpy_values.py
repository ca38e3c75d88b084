# codes: TPL102
import numpy as np
import torch

scores = np.zeros(100)
arr = np.arange(10)
for i in range(100):
    s = float(scores[i])
    v = scores[i].item()
    lst = arr.tolist()
    print(s, v, lst)
