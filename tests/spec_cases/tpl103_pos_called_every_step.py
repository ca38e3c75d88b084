# codes: TPL103
import torch


def free_per_layer(layers):
    for layer in layers:
        layer.release()
        torch.cuda.empty_cache()  # expect: TPL103


def train(model, loader, optimizer):
    for x in loader:
        model(x).sum().backward()
        optimizer.step()
        free_per_layer(model.layers)
