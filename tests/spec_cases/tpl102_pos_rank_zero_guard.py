# codes: TPL102
import torch

for i, (x, y) in enumerate(train_loader):
    loss = model(x.cuda(non_blocking=True)).sum()
    if args.rank == 0:
        summary_writer.add_scalar("loss", loss.item(), i)  # expect: TPL102
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
