# codes: TPL502
import torch as T

loader = T.utils.data.DataLoader(ds, batch_size=16, num_workers=2)  # expect: TPL502
for images, labels in loader:
    images = images.cuda()
    labels = labels.cuda()
