# codes: TPL102
import torch


@torch.no_grad()
def predict(model, loader):
    preds, probs = [], []
    for x, _ in loader:
        out = model(x.cuda())
        preds.append(out.argmax(1).cpu().numpy())  # expect: TPL102
        probs.extend(out.softmax(-1).tolist())  # expect: TPL102
    return preds, probs
