# codes: TPL502
import torch
from torch.utils.data import DataLoader


class Agent:
    def act(self, net, state, device):
        state = torch.as_tensor(state)
        if device not in ["cpu"]:
            state = state.cuda(device)  # an RL state, not a loader batch
        return net(state)


class DataModule:
    def train_dataloader(self, dataset):
        return DataLoader(dataset, batch_size=16, num_workers=2)  # the trainer moves the batches
