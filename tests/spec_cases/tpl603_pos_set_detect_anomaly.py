# codes: TPL603
import torch

torch.autograd.set_detect_anomaly(True)  # expect: TPL603


def main():
    for x, y in loader:
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    main()
