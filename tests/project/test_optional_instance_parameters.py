"""encodec-pytorch (holdout129): ``train_one_step(..., balancer=None)`` calls ``balancer.backward(...)``
every step, where ``main`` binds ``balancer = Balancer(weights) if hasattr(config, "balancer") else
None`` and hands it on; ``balancer.py`` also runs ``Balancer.backward`` once in its own ``test()``, which it runs when
started as a script.
The optional instance is one of ``Balancer`` (index: the class the branches build), and the step
loop's call counts among the visible callers, so R2's "every caller runs it once" no longer holds:
the helper ``average_metrics`` that ``Balancer.backward`` calls syncs every step."""

from __future__ import annotations

from pathlib import Path

from _project_files import findings, write

DISTRIB = """
    import torch


    def average_metrics(metrics, count=1.0):
        keys, values = zip(*metrics.items())
        tensor = torch.stack(list(values)) * count
        averaged = tensor.cpu().tolist()
        return dict(zip(keys, averaged))
"""
BALANCER = """
    import torch
    from torch import autograd
    from distrib import average_metrics


    class Balancer:
        def __init__(self, weights):
            self.weights = weights

        def backward(self, losses, input):
            norms = {}
            grads = {}
            for name, loss in losses.items():
                grad, = autograd.grad(loss, [input], retain_graph=True)
                norms[name] = grad.norm()
                grads[name] = grad
            avg_norms = average_metrics(norms)
            out_grad = 0
            for name, avg_norm in avg_norms.items():
                out_grad += grads[name] * self.weights[name] / avg_norm
            input.backward(out_grad)


    def test():
        x = torch.zeros(1, requires_grad=True)
        balancer = Balancer(weights={'1': 1})
        balancer.backward({'1': x.sum()}, x)


    if __name__ == "__main__":
        test()
"""
TRAIN = """
    import torch
    from balancer import Balancer


    def train_one_step(model, loader, optimizer, balancer=None):
        for x in loader:
            out = model(x.cuda())
            losses = {"a": out.mean(), "b": out.std()}
            if balancer is not None:
                balancer.backward(losses, out)
            else:
                sum(losses.values()).backward()
            optimizer.step()


    def main(model, loader, optimizer, config):
        balancer = {binding}
        for epoch in range(3):
            train_one_step(model, loader, optimizer, balancer)
"""
CPU = ("`.cpu()` waits for the device in every iteration; keep values on the device (`total += loss.detach()`) "
       "and sync once after the loop or every N steps (runtime_guard: sync report) (called every step from "
       "balancer.py:17 via backward)")


def _project(root: Path, binding: str) -> list:
    write(root, {"setup.py": "", "distrib.py": DISTRIB, "balancer.py": BALANCER,
                 "train.py": TRAIN.replace("{binding}", binding)})
    return findings(root, "distrib.py")


def test_an_optional_instance_handed_to_the_step_loop_is_one_of_its_class(tmp_path):
    assert _project(tmp_path / "a", 'Balancer(config.w) if hasattr(config, "balancer") else None') == [
        ("TPL102", 7, 15, CPU)]
    assert _project(tmp_path / "b", "Balancer(config.w)") == [("TPL102", 7, 15, CPU)]


def test_an_instance_of_unknown_class_leaves_the_self_test_the_only_caller(tmp_path):
    """Handed something the project cannot place, the loop's call is no visible caller of
    ``Balancer.backward``; the self-test runs it once (R2): silent."""
    assert _project(tmp_path, "config.make_balancer()") == []
