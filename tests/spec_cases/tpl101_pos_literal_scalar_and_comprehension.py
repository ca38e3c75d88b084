# codes: TPL101
import torch

temperature = torch.tensor(0.07).cuda()  # expect: TPL101
table = torch.tensor([[i * j for j in range(4)] for i in range(4)]).cuda()  # expect: TPL101
pair = torch.tensor((3, 4)).to("cuda")  # expect: TPL101
