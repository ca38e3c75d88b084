# codes: TPL103
import torch

for batch in loader:
    try:
        loss = model(batch.cuda()).mean()
        loss.backward()
        optimizer.step()
    except torch.cuda.OutOfMemoryError:
        optimizer.zero_grad(set_to_none=True)
        torch.cuda.empty_cache()
        continue
