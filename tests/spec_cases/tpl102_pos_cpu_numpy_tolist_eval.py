# codes: TPL102
# The lead's reading R7 (2026-11-26, docs/precision.md): the results of inference that the host
# keeps (appended, written) are what the run is for, like predict_step's outputs; a metric's
# .item() summed per batch is still a sync to remove.
import torch


@torch.no_grad()
def predict(model, loader):
    preds, probs, correct = [], [], 0
    for x, _ in loader:
        out = model(x.cuda())
        preds.append(out.argmax(1).cpu().numpy())
        probs.extend(out.softmax(-1).tolist())
        correct += (out.argmax(1) == 0).sum().item()  # expect: TPL102
    return preds, probs, correct
