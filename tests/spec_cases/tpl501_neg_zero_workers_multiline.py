# codes: TPL501
import torch

loader = torch.utils.data.DataLoader(  # num_workers=0 written out: a deliberate choice
    dataset,
    batch_size=32,
    shuffle=False,
    num_workers=0,
)
