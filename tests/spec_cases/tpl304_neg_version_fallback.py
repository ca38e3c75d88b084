# codes: TPL304
import torch
from packaging import version

TORCH_2_4 = version.parse(torch.__version__) >= version.parse("2.4")

if TORCH_2_4:
    scaler = torch.amp.GradScaler("cuda")
else:
    scaler = torch.cuda.amp.GradScaler()


def amp_ctx():
    if version.parse(torch.__version__) >= version.parse("2.3"):
        return torch.amp.autocast("cuda")
    else:
        return torch.cuda.amp.autocast()
