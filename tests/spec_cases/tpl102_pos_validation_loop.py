# codes: TPL102
import torch


def validate(model, val_loader, device):
    model.eval()
    correct = 0
    with torch.inference_mode():
        for images, labels in val_loader:
            images = images.to(device, non_blocking=True)
            labels = labels.to(device, non_blocking=True)
            outputs = model(images)
            correct += (outputs.argmax(1) == labels).sum().item()  # expect: TPL102
    return correct / len(val_loader.dataset)
