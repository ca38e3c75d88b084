# codes: TPL102
import torch


def train(model, loader, optimizer, pbar, logger, reference):
    best = float("inf")
    for x, y in loader:
        x, y = x.cuda(non_blocking=True), y.cuda(non_blocking=True)
        logits = model(x)
        loss = torch.nn.functional.cross_entropy(logits, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        pbar.set_postfix_str(f"loss={loss:.4f}")  # expect: TPL102
        logger.debug("loss %.4f" % loss)  # expect: TPL102
        logger.debug("loss {}".format(loss))  # expect: TPL102
        best = min(best, loss)  # expect: TPL102
        if torch.allclose(logits, reference, atol=1e-3):  # expect: TPL102
            break
        note = f"batch of {x.shape[0]}"
        logger.debug("%d samples" % len(y))
