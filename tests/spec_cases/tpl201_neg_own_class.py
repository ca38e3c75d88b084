# codes: TPL201
import torch


class DataParallel:
    """Our own thread pool wrapper."""

    def __init__(self, fn, workers=4):
        self.fn = fn
        self.workers = workers


runner = DataParallel(preprocess, workers=8)
