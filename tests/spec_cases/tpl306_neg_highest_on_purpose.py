# codes: TPL306
import torch

# Reproducibility study: full float32 on purpose.
torch.set_float32_matmul_precision("highest")
model = Net().cuda()
for x, y in loader:
    loss = criterion(model(x.cuda()), y.cuda())
    loss.backward()
    optimizer.step()
