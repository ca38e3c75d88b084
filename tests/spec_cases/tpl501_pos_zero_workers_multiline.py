# codes: TPL501
import torch

loader = torch.utils.data.DataLoader(  # expect: TPL501
    dataset,
    batch_size=32,
    shuffle=False,
    num_workers=0,
)
