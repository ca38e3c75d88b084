# codes: TPL602
import torch


def generate(net, tokens, steps):
    net.eval()
    i = 0
    while i < steps:
        logits = net(tokens)  # expect: TPL602
        tokens = torch.cat([tokens, logits[:, -1:].argmax(-1)], dim=1)
        i += 1
    return tokens
