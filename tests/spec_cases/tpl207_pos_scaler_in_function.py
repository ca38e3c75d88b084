# codes: TPL207
import torch
import torch.distributed as dist


def train(args, model, loader, optimizer, scaler):
    dist.init_process_group("nccl")
    model = torch.nn.parallel.DistributedDataParallel(model.cuda(), device_ids=[args.gpu])
    for epoch in range(args.epochs):
        for step, batch in enumerate(loader):
            with torch.autocast("cuda", dtype=torch.float16):
                loss = model(**batch).loss / args.gradient_accumulation_steps
            scaler.scale(loss).backward()  # expect: TPL207
            if step % args.gradient_accumulation_steps == 0:
                scaler.unscale_(optimizer)
                torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                scaler.step(optimizer)
                scaler.update()
                optimizer.zero_grad()
