# codes: TPL102
import torch


class MetricLogger:
    def update(self, **kwargs):
        for k, v in kwargs.items():
            if isinstance(v, torch.Tensor):
                v = v.item()
            self.meters[k].update(v)

    def summary(self):
        for name, meter in self.meters.items():
            print(name, meter.avg)
