# codes: TPL501
"""DataLoader(ds) without num_workers is slow."""
from paddle.io import DataLoader

loader = DataLoader(ds, batch_size=32)
