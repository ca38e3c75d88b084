# codes: TPL103
import torch

for path in checkpoint_paths:
    state = torch.load(path, map_location="cpu")
    convert_and_save(state)
    torch.cuda.empty_cache()
