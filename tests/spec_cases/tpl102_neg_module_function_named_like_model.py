# codes: TPL102
# A step loop calls "a model": a name bound by a `def` of the module (`evaluate_model`) is a function,
# and makes a loop a step loop only when it runs a step loop itself (the call-graph sentence).
import torch
from somewhere import evaluate

C_RANGE = torch.linspace(-6, 5, 45)


def evaluate_model(*, classifier):
    return evaluate(classifier)


def sweep(classifiers):
    all_c = 10**C_RANGE
    for i in range(len(all_c)):
        c = all_c[i].item()
        evaluate_model(classifier=classifiers[c])
