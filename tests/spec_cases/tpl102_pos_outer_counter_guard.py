# codes: TPL102
# "In a loop" is the innermost loop: `if i == 0:` on an OUTER loop's counter holds for every batch of
# the first fold, so it picks no single time round of the step loop and is no remedy.
import torch
from torch.utils.data import DataLoader


def cross_validate(model, folds, test_set):
    test_loader = DataLoader(test_set, num_workers=2, pin_memory=True)
    kept = []
    for i, split in enumerate(folds):
        for batch_idx, batch in enumerate(test_loader):
            with torch.no_grad():
                logits = model(batch.cuda(non_blocking=True))
            if i == 0:
                kept.append(logits.sum().item())  # expect: TPL102
            if batch_idx == 0:
                print(logits.sum().item())
