# codes: TPL502
import argparse

import torch
from torch.utils.data import DataLoader

parser = argparse.ArgumentParser()
parser.add_argument("--device", default="cuda")
args = parser.parse_args()
device = torch.device(args.device)
loader = DataLoader(train_set, batch_size=64, shuffle=True, num_workers=4)  # expect: TPL502
for x, y in loader:
    x, y = x.to(device), y.to(device)
