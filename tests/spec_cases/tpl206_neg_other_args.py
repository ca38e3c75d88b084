# codes: TPL206
import argparse
import os
import torch

parser = argparse.ArgumentParser()
parser.add_argument("--rank", type=int, default=0)
parser.add_argument("--local_world_size", type=int, default=1)
parser.add_argument("--lr", type=float, default=0.1, help="do not use --local_rank")
args = parser.parse_args()
local_rank = int(os.environ["LOCAL_RANK"])
