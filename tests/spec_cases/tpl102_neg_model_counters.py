# codes: TPL102
import torch
from models import Tacotron


def train(loader, optimizer, device, checkpoint_every):
    model = Tacotron().to(device)  # a module moved: not a tensor
    for x, mel in loader:
        x, mel = x.to(device), mel.to(device)
        loss = (model(x) - mel).abs().mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        step = model.get_step()  # a counter
        k = int(step) // 1000
        print(f"step {k}k, epoch {model.current_epoch}")
        if model.get_step() % checkpoint_every == 0:
            torch.save(model.state_dict(), f"step{step}.pt")
