# codes: TPL604
import torch


def train(net, loader, opt):
    for images, labels in loader:
        net.zero_grad(False)  # expect: TPL604
        loss = torch.nn.functional.cross_entropy(net(images), labels)
        loss.backward()
        opt.step()
