# codes: TPL206
import argparse

import torch.distributed as dist


def get_args():
    p = argparse.ArgumentParser(description="train")
    p.add_argument(  # expect: TPL206
        "--local-rank",
        type=int,
        default=-1,
    )
    return p.parse_args()
