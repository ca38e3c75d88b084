# codes: TPL204
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler as DS


def main(model, optimizer, train_set, epochs, rank, world):
    sampler = DS(train_set, num_replicas=world, rank=rank, shuffle=True)  # expect: TPL204
    loader = DataLoader(train_set, batch_size=8, sampler=sampler, num_workers=2)
    for epoch in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            model(x).sum().backward()
            optimizer.step()
