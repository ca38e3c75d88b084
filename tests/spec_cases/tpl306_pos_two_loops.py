# codes: TPL306
import torch


def pretrain(model, loader, optimizer):
    for x in loader:
        loss = model(x.cuda()).pow(2).mean()
        loss.backward()  # expect: TPL306
        optimizer.step()


def finetune(model, loader, optimizer):
    for x, y in loader:
        loss = torch.nn.functional.mse_loss(model(x.cuda()), y.cuda())
        loss.backward()  # expect: TPL306
        optimizer.step()
