# codes: TPL206
import argparse
import torch

parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=90)
parser.add_argument('--local_rank', type=int, default=0, help='node rank for distributed training')  # expect: TPL206
args = parser.parse_args()
torch.cuda.set_device(args.local_rank)
