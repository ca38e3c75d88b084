# codes: TPL306
import torch
import torch.backends.cudnn as cudnn

cudnn.benchmark = True     # about convolutions; says nothing about matmul precision
net = Net().cuda()
while step < total_steps:
    x, y = next(data_iter)
    loss = criterion(net(x.cuda()), y.cuda())
    loss.backward()  # expect: TPL306
    optimizer.step()
    step += 1
