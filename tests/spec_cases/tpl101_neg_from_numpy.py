# codes: TPL101
import numpy as np
import torch

arr = np.load("features.npy")
features = torch.from_numpy(arr).cuda()
