# codes: TPL101,TPL102,TPL103,TPL104,TPL201,TPL301,TPL305,TPL501,TPL502,TPL503,TPL602
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader
from torchvision import datasets, transforms

device = torch.device("cuda")


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Flatten(), nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 10))

    def forward(self, x):
        return self.net(x)


def evaluate(model, loader):
    model.eval()
    correct = 0
    for x, y in loader:
        pred = model(x.to(device)).argmax(1)  # expect: TPL602,TPL104
        correct += (pred == y.to(device)).sum()  # expect: TPL104
    return correct


train_ds = datasets.MNIST("data", train=True, download=True, transform=transforms.ToTensor())
test_ds = datasets.MNIST("data", train=False, transform=transforms.ToTensor())
train_loader = DataLoader(train_ds, batch_size=128, shuffle=True)  # expect: TPL501,TPL502
test_loader = DataLoader(test_ds, batch_size=512, num_workers=2, pin_memory=True)

model = MLP()
model = nn.DataParallel(model).to(device)  # expect: TPL201
class_weights = torch.ones(10).to(device)  # expect: TPL101
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

for epoch in range(5):
    model.train()
    for x, y in train_loader:
        x, y = x.to(device), y.to(device)  # unpinned loader: no TPL104
        with torch.autocast("cuda", dtype=torch.float16):  # expect: TPL301
            loss = F.cross_entropy(model(x), y, weight=class_weights)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        torch.cuda.empty_cache()  # expect: TPL103
        print("loss", loss.item())  # expect: TPL102
    acc = evaluate(model, test_loader)
    print(epoch, acc.item() / len(test_ds))
