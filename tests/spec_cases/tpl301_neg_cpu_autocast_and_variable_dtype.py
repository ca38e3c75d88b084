# codes: TPL301
import torch

amp_dtype = torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
for x, y in loader:
    with torch.autocast("cpu"):
        loss = criterion(model(x), y)
    loss.backward()
    with torch.autocast("cuda", dtype=amp_dtype):
        loss2 = criterion(model(x.cuda()), y.cuda())
    loss2.backward()
    optimizer.step()
