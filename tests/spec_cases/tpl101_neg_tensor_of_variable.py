# codes: TPL101
import torch

device = torch.device("cuda")


def collate(batch):
    ids = [item["input_ids"] for item in batch]
    lengths = [len(x) for x in ids]
    length_t = torch.tensor(lengths).to(device)
    labels = torch.as_tensor(batch[0]["labels"]).cuda()
    return length_t, labels
