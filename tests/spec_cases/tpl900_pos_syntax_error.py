# codes: TPL900  # expect: TPL900
import torch

def train(model:
    loss = model(x
