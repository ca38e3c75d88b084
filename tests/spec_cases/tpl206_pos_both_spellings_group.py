# codes: TPL206
import argparse
import torch

parser = argparse.ArgumentParser()
dist_group = parser.add_argument_group("distributed")
dist_group.add_argument("--local_rank", "--local-rank", type=int, default=0)  # expect: TPL206
dist_group.add_argument("--world_size", type=int, default=1)
