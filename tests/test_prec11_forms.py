"""Forms of the errors left on holdout11-14 (2026-11-26, helper prec11; tuned on those sets)."""

from torchperf_lint.engine import lint_source

from _diagnostics import CPU_SYNC as CPU, ITEM_SYNC as ITEM


def _tpl102(source: str, path: str = "train.py"):
    return [(f.code, f.line, f.message) for f in lint_source(source, path, codes=("TPL102",))]


# ---- minimalRL (holdout14): a CPU-only script's policies -------------------------------------------

MODEL_HANDED_TO_FILE_FUNCTIONS = """\
import gym
import torch
import torch.nn as nn


class Policy(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def v(self, x):
        return self.fc(x)


def test(step, model):
    print(step, model.v(torch.zeros(4)).sum())


def place(model, device):
    model.fc.to(device)


def train(env, steps, device):
    kept = Policy()
    placed = Policy()
    place(placed, device)
    opt = torch.optim.Adam(kept.parameters())
    s = env.reset()
    for t in range(steps):
        loss = kept.v(torch.from_numpy(s).float()).sum()
        loss.backward()
        opt.step()
        print(kept.v(torch.from_numpy(s).float()).sum().item())
        print(placed.v(torch.from_numpy(s).float()).sum().item())
        if t % 100 == 0:
            test(t, kept)


train(gym.make("CartPole-v1"), 100, "cuda")
"""


def test_a_model_handed_only_to_a_function_of_the_file_that_calls_it_stays_on_the_host():
    """minimalRL's ``test(step_idx, model)`` and ``calc_target(pi, ...)``: a function the file
    defines that only calls the model or its methods does not move it, so the model stays where
    the file built it, on the host (rules.md "Where a value lives"); a function that moves a part
    of it (``model.fc.to(device)``) may have moved it: its outputs stay possibly on the device."""
    assert _tpl102(MODEL_HANDED_TO_FILE_FUNCTIONS) == [("TPL102", 34, ITEM)]


MODEL_HANDED_ON = """\
import torch
import torch.nn as nn


class Policy(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)


def wrap(model, accelerator):
    return accelerator.prepare(model)


def train(env, steps, accelerator):
    model = Policy()
    wrap(model, accelerator)
    opt = torch.optim.Adam(model.parameters())
    s = env.reset()
    for t in range(steps):
        loss = model(torch.from_numpy(s).float()).sum()
        loss.backward()
        opt.step()
        print(loss.item())
"""


def test_a_model_a_function_of_the_file_hands_on_may_be_moved():
    """A function of the file that hands the model to another call (``accelerator.prepare``)
    may move it: the model's outputs are possibly on the device and the read is reported."""
    assert _tpl102(MODEL_HANDED_ON) == [("TPL102", 24, ITEM)]


TUPLE_OF_A_HOST_MODEL = """\
import gym
import torch
import torch.nn as nn


class PPO(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def pi(self, x, hidden):
        out = self.fc(x)
        return torch.softmax(out, dim=-1), hidden


def run(env, steps):
    model = PPO()
    moved = PPO().cuda()
    h_out = (torch.zeros([1, 1, 32]), torch.zeros([1, 1, 32]))
    s = env.reset()
    for t in range(steps):
        h_in = h_out
        prob, h_out = model.pi(torch.from_numpy(s).float(), h_in)
        loss = -torch.log(prob).sum()
        loss.backward()
        print(prob[0].item())
        q, _ = moved.pi(torch.from_numpy(s).float().cuda(), h_in)
        print(q[0].item())


run(gym.make("CartPole-v1"), 100)
"""


def test_a_tuple_unpacked_from_a_host_model_method_holds_host_tensors():
    """minimalRL's ``prob, h_out = model.pi(s, h_in)``: the items a method of a model built in the
    file and never moved returns, given host tensors, are host tensors, as the whole result is
    (R21), whatever the method's summary says of its ``self.fc`` outputs; the items of a moved
    model's method stay possibly on the device."""
    assert _tpl102(TUPLE_OF_A_HOST_MODEL, "ppo.py") == [("TPL102", 28, ITEM)]


DISTRIBUTIONS = """\
import gym
import torch
import torch.nn as nn
from torch.distributions import Categorical, Normal


class PPO(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def pi(self, x):
        return self.fc(x), torch.ones(2)


def run(env, steps, device):
    model = PPO()
    rollout = []
    s = env.reset()
    for t in range(steps):
        mu, std = model.pi(torch.from_numpy(s).float())
        dist = Normal(mu, std)
        a = dist.sample()
        log_prob = dist.log_prob(a)
        rollout.append((s, log_prob.item(), Categorical(logits=mu).entropy().item()))
        loss = -log_prob.sum()
        loss.backward()
        far = Normal(mu.to(device), std)
        print(far.log_prob(a.to(device)).item())


run(gym.make("Pendulum-v1"), 100, "cuda")
"""


def test_a_distribution_of_host_tensors_gives_host_samples_and_log_probs():
    """minimalRL's ``dist = Normal(mu, std)``; ``log_prob = dist.log_prob(a)``; ``log_prob.item()``
    with ``mu``, ``std`` host tensors: a torch.distributions object computes its samples and
    log-probabilities from its parameters, where they live (the host); one built from a tensor
    moved to the device gives values possibly there."""
    assert _tpl102(DISTRIBUTIONS, "ppo.py") == [("TPL102", 29, ITEM)]


# ---- Matcha-TTS (holdout11): R3 across a call, a slice bound -----------------------------------------

SLICE_BOUND_IN_A_CALLEE = """\
import numpy as np
import torch


def save_durations(attn, x_length, y_length, path):
    durations = attn.squeeze().sum(1)[:x_length].numpy()
    np.save(path, durations)


def save_head(attn, n, path):
    np.save(path, attn[: int(n) + 1].numpy())


@torch.inference_mode()
def compute_durations(loader, model, device):
    for batch in loader:
        x, x_lengths, y_lengths = batch["x"].to(device), batch["x_lengths"].to(device), batch["y_lengths"].to(device)
        attn = model(x, x_lengths).cpu()
        for i in range(attn.shape[0]):
            save_durations(attn[i], x_lengths[i].item(),
                           y_lengths[i].item(), batch["paths"][i])
            save_head(attn[i], n=x_lengths[i].item(), path=batch["paths"][i])
"""


def test_a_value_a_callee_uses_as_a_slice_bound_is_host_needed():
    """Matcha's ``save_durations_to_folder(attn[i], x_lengths[i].item(), y_lengths[i].item(), ...)``:
    the callee slices ``[:x_length]`` (also ``[: int(n) + 1]``, by keyword), a size the host needs,
    so that sync cannot go while the call stays (R3 across the call); ``y_length``, which the
    callee never uses as a bound, stays a sync that buys nothing."""
    assert _tpl102(SLICE_BOUND_IN_A_CALLEE, "durations.py") == [("TPL102", 21, ITEM)]
    assert SLICE_BOUND_IN_A_CALLEE.splitlines()[20].strip().startswith("y_lengths[i].item()")


# ---- PARE (holdout12): an optimised value handed to a helper that cannot train ----------------------


OPTIMISED_VALUE_TO_A_HELPER = """\
import torch


def to_perspective(cam, focal_length=5000.0):
    return torch.stack([cam[:, 1], cam[:, 2], 2 * focal_length / (cam[:, 0] + 1e-9)], dim=-1)


def refine(opt, cam):
    opt.step()
    return cam


@torch.no_grad()
def run_on_images(model, images, fit, device):
    results = []
    for image in images:
        output = model(image.to(device))
        update, new_opt_cam = fit(output)
        output["cam_t"] = to_perspective(new_opt_cam)[update]
        results.append(output["cam"].cpu())
    return results


@torch.no_grad()
def run_and_refine(model, images, fit, device):
    results = []
    for image in images:
        output = model(image.to(device))
        update, new_opt_cam = fit(output)
        output["cam_t"] = refine(new_opt_cam, output["cam"])
        results.append(output["cam"].cpu())
    return results
"""


def test_an_optimised_value_handed_to_a_helper_that_cannot_train_leaves_the_loop_inference():
    """PARE's demo loop hands SMPLify's refined camera ``new_opt_cam`` to a project function whose
    body is one ``torch.stack``: a function that calls no backward, steps nothing and calls only
    library functions cannot train with what it is handed, so the loop trains nothing and its
    stored copies are results the host keeps (R7/R8). Handed to a function that steps it, the
    same name makes the loop train: its copy stays reported."""
    assert _tpl102(OPTIMISED_VALUE_TO_A_HELPER, "demo.py") == [("TPL102", 31, CPU)]
