"""Lightning Trainer(strategy="ddp") on two CPU processes (gloo), as a new user would write it.

The loader comes from a ``train_dataloader`` hook with a positional dataset, so Lightning
re-creates it (to inject a DistributedSampler) from ``inspect.signature(DataLoader.__init__)``
and the instance's attributes. Rank 0 writes the trained weights to ``argv[1]``;
``IMPORT_GUARD=1``: the script imports runtime_guard itself."""
import os
import sys

if os.environ.get("IMPORT_GUARD") == "1":
    import runtime_guard  # noqa: F401  (the guard, installed as a user would)
import pytorch_lightning as pl
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


class Model(pl.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 1))

    def training_step(self, batch, batch_idx):
        x, y = batch
        return nn.functional.mse_loss(self.net(x), y)

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.1)

    def train_dataloader(self):
        g = torch.Generator().manual_seed(0)
        data = TensorDataset(torch.randn(64, 4, generator=g), torch.randn(64, 1, generator=g))
        return DataLoader(data, 8)


if __name__ == "__main__":
    pl.seed_everything(0, verbose=False)
    model = Model()
    trainer = pl.Trainer(strategy="ddp", accelerator="cpu", devices=2, max_epochs=2,
                         logger=False, enable_checkpointing=False, enable_progress_bar=False,
                         enable_model_summary=False, num_sanity_val_steps=0)
    trainer.fit(model)
    if trainer.global_rank == 0:
        torch.save({k: v.detach().clone() for k, v in model.state_dict().items()}, sys.argv[1])
    guard = sys.modules.get("runtime_guard")
    line = (f"rank {trainer.global_rank} steps {trainer.global_step} guard "
            f"{'on' if guard is not None and guard.GUARD.installed else 'off'}\n")
    sys.stdout.flush()
    os.write(1, line.encode())  # one write: both ranks share the pipe (print writes twice)
