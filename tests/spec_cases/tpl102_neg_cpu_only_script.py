# codes: TPL102
# A CPU-only script (makemore-style): every tensor is made by a CPU factory, the model is built
# here and never moved, so nothing the loop reads waits for a device.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Bigram(nn.Module):
    def __init__(self, vocab):
        super().__init__()
        self.table = nn.Embedding(vocab, vocab)

    def forward(self, idx):
        return self.table(idx)


def main(words, stoi):
    xs = torch.tensor([stoi[w[0]] for w in words])
    ys = torch.tensor([stoi[w[-1]] for w in words])
    g = torch.Generator().manual_seed(2147483647)
    C = torch.randn((27, 10), generator=g)
    W1 = torch.randn((10, 200), generator=g) * 0.2
    b1 = torch.randn(200, generator=g) * 0.01
    W2 = torch.randn((200, 27), generator=g) * 0.01
    for p in (C, W1, b1, W2):
        p.requires_grad = True
    model = Bigram(27)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    lossi = []
    for i in range(1000):
        ix = torch.randint(0, xs.shape[0], (32,), generator=g)
        emb = C[xs[ix]]
        h = torch.tanh(emb @ W1 + b1)
        loss = F.cross_entropy(h @ W2, ys[ix])
        for p in (C, W1, b1, W2):
            p.grad = None
        loss.backward()
        for p in (C, W1, b1, W2):
            p.data += -0.1 * p.grad
        lossi.append(loss.log10().item())
        bigram_loss = F.cross_entropy(model(xs[ix]), ys[ix])
        optimizer.zero_grad()
        bigram_loss.backward()
        optimizer.step()
        print(f"{i}: {loss.item():.4f} {bigram_loss:.4f}")
