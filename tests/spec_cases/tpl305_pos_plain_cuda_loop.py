# codes: TPL305
import torch
import torch.nn.functional as F

model = Net().cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
for epoch in range(10):
    for x, y in loader:
        x, y = x.cuda(), y.cuda()
        loss = F.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()  # expect: TPL305
        optimizer.step()
