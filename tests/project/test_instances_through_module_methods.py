"""An instance of a project class reached through the nn.Module methods that return the module
(rules.md "A step body": names or ``self.`` attributes bound to an instance of a project class):
``self.id_loss = IDLoss().to(self.device).eval()`` is an ``IDLoss``, and calling it every step runs
its ``forward`` every step (pixel2style2pixel, holdout10: eight ``float()`` per sample missed)."""

from __future__ import annotations

from _diagnostics import SYNC_TEMPLATE
from _project_files import findings, write

FLOAT = SYNC_TEMPLATE.format(what="`float()` of a tensor")


ID_LOSS = """
    import torch
    from torch import nn


    class IDLoss(nn.Module):
        def forward(self, y_hat, y):
            improvement = 0.0
            for i in range(y.shape[0]):
                diff = torch.dot(y_hat[i], y[i])
                improvement += float(diff)
            return (1 - y_hat * y).mean(), improvement
    """
COACH = """
    import torch
    from criteria.id_loss import IDLoss


    class Coach:
        def __init__(self, net, loader, device):
            self.net, self.loader, self.device = net, loader, device
            self.optimizer = torch.optim.Adam(net.parameters())
            self.id_loss = IDLoss().to(self.device).eval()

        def train(self):
            for x, y in self.loader:
                y_hat = self.net(x.to(self.device))
                loss, logs = self.id_loss(y_hat, y.to(self.device))
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
    """


def test_an_instance_made_then_moved_and_put_in_eval_mode_is_still_the_class(tmp_path):
    write(tmp_path, {"setup.py": "", "criteria/__init__.py": "", "criteria/id_loss.py": ID_LOSS,
                     "coach.py": COACH})
    assert findings(tmp_path, "criteria/id_loss.py") == [
        ("TPL102", 10, 27, FLOAT + " (called every step from coach.py:14)")]


def test_a_method_that_returns_something_else_is_not_the_class(tmp_path):
    """``IDLoss().parameters()`` is no IDLoss: not followed."""
    coach = COACH.replace("IDLoss().to(self.device).eval()", "IDLoss().state_dict()")
    write(tmp_path, {"setup.py": "", "criteria/__init__.py": "", "criteria/id_loss.py": ID_LOSS,
                     "coach.py": coach})
    assert findings(tmp_path, "criteria/id_loss.py") == []
