# codes: TPL501
import torch


class DataLoader:
    def __init__(self, items, batch_size):
        self.items = items
        self.batch_size = batch_size


loader = DataLoader(records, batch_size=16)
