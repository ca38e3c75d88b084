# codes: TPL207
import torch
from torch.nn.parallel import DistributedDataParallel as DDP

model = DDP(model, device_ids=[ddp_local_rank])
for iter_num in range(max_iters):
    for micro_step in range(gradient_accumulation_steps):
        model.require_backward_grad_sync = micro_step == gradient_accumulation_steps - 1
        logits, loss = model(X, Y)
        loss = loss / gradient_accumulation_steps
        scaler.scale(loss).backward()
        if (micro_step + 1) % gradient_accumulation_steps == 0:
            scaler.step(optimizer)
            scaler.update()
