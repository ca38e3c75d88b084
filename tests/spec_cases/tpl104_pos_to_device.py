# codes: TPL104
import torch
from torch.utils.data import DataLoader

device = torch.device("cuda")
loader = DataLoader(train_set, batch_size=128, shuffle=True, num_workers=8, pin_memory=True)

for images, labels in loader:
    images = images.to(device)  # expect: TPL104
    labels = labels.to(device, non_blocking=True)
    loss = criterion(model(images), labels)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
