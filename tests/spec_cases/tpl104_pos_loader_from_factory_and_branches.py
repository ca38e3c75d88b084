# codes: TPL104
import torch
from torch.utils.data import DataLoader


class Trainer:
    def __init__(self, model, train_data: DataLoader, local_rank):
        self.model = model
        self.train_data = train_data
        self.local_rank = local_rank

    def _run_epoch(self):
        for source, targets in self.train_data:
            source = source.to(self.local_rank)  # expect: TPL104
            targets = targets.to(self.local_rank)  # expect: TPL104
            self._run_batch(source, targets)


def prepare_dataloader(dataset, batch_size):
    return DataLoader(dataset, batch_size=batch_size, pin_memory=True, shuffle=False)


def validate(model, val_loader, use_cuda, gpu):
    device = torch.accelerator.current_accelerator()
    for images, target in val_loader:
        if use_cuda:
            images = images.cuda(gpu, non_blocking=True)
        else:
            images = images.to(device)  # expect: TPL104
        output = model(images)


train_data = prepare_dataloader(dataset, 32)
trainer = Trainer(model, train_data, 0)
validate(model, prepare_dataloader(val_set, 64), True, 0)
