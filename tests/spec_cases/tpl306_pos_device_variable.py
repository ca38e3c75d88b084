# codes: TPL306
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def train(model, loader, opt):
    model.train()
    for batch in loader:
        inputs = batch["input"].to(device)
        loss = model(inputs).mean()
        loss.backward()  # expect: TPL306
        opt.step()
        opt.zero_grad()
