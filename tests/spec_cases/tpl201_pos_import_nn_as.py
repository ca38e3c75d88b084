# codes: TPL201
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(1000, 10)
        self.rnn = nn.Linear(10, 10)

    def forward(self, x):
        return self.rnn(self.embedding(x))


model = nn.DataParallel(Model())  # expect: TPL201
