# codes: TPL206
import argparse
import os
import torch

parser = argparse.ArgumentParser()
parser.add_argument("--dist-backend", default="nccl")
parser.add_argument("--local-ranks-file", default="ranks.txt")
args = parser.parse_args()
local_rank = int(os.environ.get("LOCAL_RANK", 0))
torch.cuda.set_device(local_rank)
