# codes: TPL101
"""Do not write torch.zeros(3).cuda(); pass device= instead."""
import torch

# bad: torch.randn(2, 2).cuda()
HELP = "torch.ones(4).to('cuda') is slow"
good = torch.randn(2, 2, device="cuda")
