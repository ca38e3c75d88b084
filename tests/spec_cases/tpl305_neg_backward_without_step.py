# codes: TPL305
import torch

model = Net().cuda().eval()


def saliency(x):
    x = x.cuda().requires_grad_(True)
    score = model(x).max()
    score.backward()
    return x.grad.abs()


for img in images:
    maps.append(saliency(img))
