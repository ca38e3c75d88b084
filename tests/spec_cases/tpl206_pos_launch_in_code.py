# codes: TPL206
import sys
import torch
import torch.distributed.launch

if __name__ == "__main__":
    sys.argv = ["launch", "--nproc_per_node=4", "train.py"]
    torch.distributed.launch.main()  # expect: TPL206
