# codes: TPL305
import torch

device = torch.device("cuda")


def train(model, loader, optimizer, criterion):
    model.to(device)
    model.train()
    for inputs, labels in loader:
        inputs = inputs.to(device)
        labels = labels.to(device)
        optimizer.zero_grad()
        outputs = model(inputs)
        loss = criterion(outputs, labels)
        loss.backward()  # expect: TPL305
        optimizer.step()
