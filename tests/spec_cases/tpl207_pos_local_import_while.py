# codes: TPL207
import torch


def main(cfg):
    from torch.nn.parallel import DistributedDataParallel

    net = DistributedDataParallel(build(cfg))
    it = iter(train_loader)
    step = 0
    while step < cfg.max_steps:
        images, labels = next(it)
        out = net(images.cuda())
        loss = torch.nn.functional.cross_entropy(out, labels.cuda())
        (loss / cfg.accum).backward()  # expect: TPL207
        step += 1
        if step % cfg.accum == 0:
            opt.step()
            opt.zero_grad(set_to_none=True)
