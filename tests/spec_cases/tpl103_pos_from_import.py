# codes: TPL103
import torch
from torch.cuda import empty_cache


def run_inference(model, chunks):
    results = []
    with torch.inference_mode():
        for chunk in chunks:
            results.append(model(chunk.cuda()))
            empty_cache()  # expect: TPL103
    return results
