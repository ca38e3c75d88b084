# codes: TPL103
import torch

for step, batch in enumerate(loader):
    loss = model(**batch).loss
    loss.backward()
    optimizer.step()
    if step % 100 == 0:
        torch.cuda.empty_cache()  # expect: TPL103
