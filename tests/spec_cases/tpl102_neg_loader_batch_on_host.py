# codes: TPL102
import torch
from torch.utils.data import DataLoader

loader = DataLoader(dataset, batch_size=32, num_workers=4)
for step, (images, labels) in enumerate(loader):
    counts = labels.bincount().tolist()
    first = images[0].numpy()
    n_pos = int(labels.sum())
    images = images.cuda(non_blocking=True)
    loss = model(images).mean()
    loss.backward()
    optimizer.step()
