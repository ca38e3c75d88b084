# codes: TPL104
import torch
from torch.utils.data import DataLoader

device = torch.device("cuda")
loader = DataLoader(ds, batch_size=32, num_workers=4, pin_memory=True)
model = build_model().to(device)
for fold in range(5):
    model = build_model()
    model = model.to(device)
    model.cuda()
    for x, y in loader:
        x = x.to(device, non_blocking=True)
        loss = criterion(model(x), y.to(device, non_blocking=True))
        loss.backward()
        optimizer.step()
