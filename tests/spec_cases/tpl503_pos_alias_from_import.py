# codes: TPL503
from torch.nn import BatchNorm2d, Conv2d, Sequential
from torch.utils.data import DataLoader as DL

net = Sequential(Conv2d(1, 8, 3), BatchNorm2d(8))
loader = DL(mnist_train, batch_size=100, shuffle=True, num_workers=2)  # expect: TPL503
