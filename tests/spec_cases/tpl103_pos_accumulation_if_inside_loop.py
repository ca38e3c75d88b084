# codes: TPL103
# An `if` that runs the optimizer step (gradient accumulation) is no interval: its body runs at
# every optimizer step.
import torch

for step, batch in enumerate(loader):
    loss = model(**batch).loss
    loss.backward()
    if step % accumulation_steps == 0:
        optimizer.step()
        torch.cuda.empty_cache()  # expect: TPL103
