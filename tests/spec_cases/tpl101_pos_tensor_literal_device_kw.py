# codes: TPL101
import torch

device = torch.device("cuda")
class_weights = torch.tensor([1.0, 2.5, 0.7]).to(device=device)  # expect: TPL101
criterion = torch.nn.CrossEntropyLoss(weight=class_weights)
