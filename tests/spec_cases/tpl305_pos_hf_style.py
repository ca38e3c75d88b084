# codes: TPL305
import torch

model = AutoModel.from_pretrained(name).cuda()
optim = torch.optim.AdamW(model.parameters(), lr=3e-5)
for batch in loader:
    batch = {k: v.cuda() for k, v in batch.items()}
    out = model(**batch)
    out.loss.backward()  # expect: TPL305
    optim.step()
    optim.zero_grad()
