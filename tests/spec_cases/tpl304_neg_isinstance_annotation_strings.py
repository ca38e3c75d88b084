# codes: TPL304
"""Replaces torch.cuda.amp.autocast() with torch.amp.autocast("cuda")."""
import torch

# scaler = torch.cuda.amp.GradScaler()
OLD = "torch.cuda.amp.GradScaler"


def save_scaler(scaler: torch.cuda.amp.GradScaler, path: str) -> None:
    if isinstance(scaler, torch.cuda.amp.GradScaler):
        torch.save(scaler.state_dict(), path)
