# codes: TPL104
import torch
from torch.utils.data import DataLoader


class Trainer:
    def __init__(self, model, dataset, gpu_id):
        self.gpu_id = gpu_id
        self.model = model.to(gpu_id)
        self.train_data = DataLoader(dataset, batch_size=32, pin_memory=True, num_workers=2)

    def _run_epoch(self):
        for source, targets in self.train_data:
            source = source.to(self.gpu_id)  # expect: TPL104
            targets = targets.to(self.gpu_id)  # expect: TPL104
            loss = self.model(source).sum()
            loss.backward()
