# codes: TPL602
import torch


def embed_all(encoder, batches):
    encoder.eval()
    feats = []
    for b in batches:
        feats.append(encoder(b.cuda()))  # expect: TPL602
    return torch.cat(feats)
