# codes: TPL301
import torch as T

for step, (x, y) in enumerate(loader):
    with T.amp.autocast("cuda", dtype=T.half):  # expect: TPL301
        loss = crit(net(x.cuda()), y.cuda())
    loss.backward()
    opt.step()
    opt.zero_grad()
