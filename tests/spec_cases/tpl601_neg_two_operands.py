# codes: TPL601
import torch

y = x @ W
z = torch.mm(a, b)
w = torch.matmul(q, k)
s = x @ W1 + h @ W2
t = torch.linalg.multi_dot([a, b, c])
