# codes: TPL900  # reported at the error's line (spec TPL9xx)
import torch

def train(model:
    loss = model(x  # expect: TPL900
