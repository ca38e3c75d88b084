# codes: TPL301
import torch

model.train()
for images, target in train_loader:
    with torch.cuda.amp.autocast():  # expect: TPL301
        output = model(images.cuda(non_blocking=True))
        loss = criterion(output, target.cuda(non_blocking=True))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
