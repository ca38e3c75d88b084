# codes: TPL305
import torch as T

net = T.nn.Linear(10, 1).to("cuda")
opt = T.optim.Adam(net.parameters())
step = 0
while step < 1000:
    x = T.randn(32, 10, device="cuda")
    loss = net(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()  # expect: TPL305
    opt.step()
    step += 1
