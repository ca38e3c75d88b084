# codes: TPL102
import time

import torch
from torch.nn.utils.rnn import pack_padded_sequence


def train(model, loader, optimizer, timings):
    for tokens, lengths in loader:
        tokens, lengths = tokens.cuda(), lengths.cuda()
        packed = pack_padded_sequence(tokens, lengths.cpu(), batch_first=True, enforce_sorted=False)
        sizes = lengths.tolist()  # used only as split sections below
        chunks = torch.split(tokens, sizes)
        pieces = tokens.tensor_split(lengths.cumsum(0)[:-1].cpu())
        flat = tokens.view(int(lengths.sum()), -1)
        out = model(packed, chunks, pieces, flat)
        torch.cuda.synchronize()
        start = time.perf_counter()
        out.sum().backward()
        optimizer.step()
        if torch.cuda.is_available():
            torch.cuda.synchronize()
        timings.append(time.perf_counter() - start)


def greedy(model, loader, eos_id, max_len):
    for src in loader:
        ys = src.cuda()
        for _ in range(max_len):
            next_id = model(ys)[:, -1].argmax(-1)
            ys = torch.cat([ys, next_id[:, None]], dim=1)
            if next_id.item() == eos_id:
                break
            if (next_id == eos_id).all(): break
