# codes: TPL206
"""Launch with: python -m torch.distributed.launch --nproc_per_node=4 main.py --local_rank 0"""
import subprocess
import torch

# parser.add_argument("--local_rank", type=int)
CMD = ["python", "-m", "torch.distributed.launch", "--nproc_per_node=4", "main.py"]
subprocess.run(CMD, check=True)
