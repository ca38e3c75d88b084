# codes: TPL201
import torch

multigpu = [0, 1, 2, 3]
torch.cuda.set_device(multigpu[0])
model = torch.nn.DataParallel(model, device_ids=multigpu).cuda(  # expect: TPL201
    multigpu[0]
)
