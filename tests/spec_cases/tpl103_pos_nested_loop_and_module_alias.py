# codes: TPL103
import torch.cuda as tc

for epoch in range(epochs):
    for batch in loader:
        train_step(batch)
        tc.empty_cache()  # expect: TPL103
