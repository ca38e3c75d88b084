"""Forms the tuned scores of holdout31-holdout34 still got wrong (2026-11-27, the fourteenth
session, before the first scores of holdout35-holdout38): each with its flagged and silent twins,
whole diagnostics."""


from torchperf_lint.engine import lint_source

SYNC = ("{what} waits for the device in every iteration; keep values on the device (`total += "
        "loss.detach()`) and sync once after the loop or every N steps (runtime_guard: sync report)")


def _found(source, codes=("TPL102",), path="train.py"):
    return [(f.code, f.line, f.col, f.message) for f in lint_source(source, path, codes=codes)]


EVALUATION_IN_A_TRAINING_FUNCTION = """\
import numpy as np
import torch


def train_gmf(model, make_loader, test_set, optimizer):
    test_data = torch.utils.data.DataLoader(test_set, batch_size=2048)
    for epoch in range(15):
        model.train()
        train_data = make_loader()
        for iter_ in train_data:
            optimizer.zero_grad()
            loss = model.loss(iter_.cuda())
            loss.backward()
            optimizer.step()
            kept = loss.detach().cpu()
        retrieval = []
        model.eval()
        with torch.no_grad():
            for iter_ in test_data:
                scores = model(iter_.cuda())
                retrieval.append(scores.cpu().numpy())
                print(scores.max().item())
        print(np.vstack(retrieval))
"""


def test_an_evaluation_pass_beside_a_visible_training_loop_in_a_function_named_for_training():
    """recsys's ``train_gmf``: a function whose name says it trains holds the loop over epochs,
    and in it the training loop and, beside it, the evaluation pass. The training is in sight, so
    the evaluation pass trains nothing whatever the function is called: its copies to numpy are
    silent (R8, R36); its ``.item()`` (R7) and the training loop's copy stay flagged."""
    assert _found(EVALUATION_IN_A_TRAINING_FUNCTION) == [
        ("TPL102", 15, 19, SYNC.format(what="`.cpu()`")),
        ("TPL102", 22, 22, SYNC.format(what="`.item()`")),
    ]
