# codes: TPL104
import torch

train_loader = torch.utils.data.DataLoader(
    dataset, batch_size=64, num_workers=4, pin_memory=True, shuffle=True
)


def train(model, optimizer):
    for x, y in train_loader:
        x, y = x.cuda(), y.cuda()  # expect: TPL104
        loss = torch.nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
