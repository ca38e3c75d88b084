# codes: TPL306
import torch

torch.set_float32_matmul_precision("high")
model = Net().cuda()
for x, y in loader:
    loss = criterion(model(x.cuda()), y.cuda())
    loss.backward()
    optimizer.step()
