# codes: TPL501
import torch.utils.data as data
import torch as T

a = data.DataLoader(ds, batch_size=8)  # expect: TPL501
b = T.utils.data.DataLoader(ds, 8, True)  # expect: TPL501
