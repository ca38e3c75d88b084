# codes: TPL502
import torch

device = torch.device("cuda:0")
loader = torch.utils.data.DataLoader(ds, batch_size=32, num_workers=4, pin_memory=False)  # expect: TPL502
for batch in loader:
    batch = batch.to(device)
