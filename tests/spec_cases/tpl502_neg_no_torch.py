# codes: TPL502
from mylib import DataLoader

loader = DataLoader(ds, batch_size=32, num_workers=4)
for x in loader:
    x = x.cuda()
