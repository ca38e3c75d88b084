# codes: TPL602
import torch

model = torch.load("model.pt")
model.eval()
preds = []
for x, _ in test_loader:
    preds.append(model(x))  # expect: TPL602
