# codes: TPL401
import torch

torch.backends.cudnn.deterministic = True
torch.backends.cudnn.benchmark = args.benchmark
torch.use_deterministic_algorithms(False)
