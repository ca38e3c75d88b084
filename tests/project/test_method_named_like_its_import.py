"""A bare name in a method never names a method of its class: Python skips class bodies when it
looks a name up from a function. adversarial_robustness_pytorch's ``Trainer.trades_loss`` calls the
imported ``trades_loss`` of ``core/utils/trades.py`` (holdout97): that function runs every step."""

from _diagnostics import ITEM_SYNC
from _project_files import findings, write

TRADES = """
    import torch


    def trades_loss(model, x, y, optimizer):
        optimizer.zero_grad()
        loss = model(x).sum()
        batch_metrics = {'loss': loss.item()}
        return loss, batch_metrics
    """
TRAIN = """
    import torch
    from .trades import trades_loss


    class Trainer:
        def train(self, dataloader):
            for x, y in dataloader:
                x, y = x.cuda(), y.cuda()
                loss, batch_metrics = self.trades_loss(x, y)
                loss.backward()
                self.optimizer.step()

        def trades_loss(self, x, y):
            {body}
    """


def test_a_method_calling_the_imported_function_of_its_own_name_reaches_it(tmp_path):
    body = "return trades_loss(self.model, x, y, self.optimizer)"
    write(tmp_path, {"setup.py": "", "core/__init__.py": "", "core/trades.py": TRADES,
                     "core/train.py": TRAIN.replace("{body}", body)})
    assert findings(tmp_path, "core/trades.py") == [
        ("TPL102", 7, 29, ITEM_SYNC + " (called every step from core/train.py:9 via trades_loss)")]


def test_the_imported_function_is_no_step_body_where_the_method_does_not_call_it(tmp_path):
    body = "return self.model(x).sum(), {}"
    write(tmp_path, {"setup.py": "", "core/__init__.py": "", "core/trades.py": TRADES,
                     "core/train.py": TRAIN.replace("{body}", body)})
    assert findings(tmp_path, "core/trades.py") == []


def test_a_function_nested_in_the_method_is_still_the_nearest_name(tmp_path):
    """``def trades_loss(...)`` inside the method shadows the import: the nested one is called."""
    body = ("def trades_loss(*args):\n                return self.model(x).sum(), {}\n"
            "            return trades_loss(self.model, x, y, self.optimizer)")
    write(tmp_path, {"setup.py": "", "core/__init__.py": "", "core/trades.py": TRADES,
                     "core/train.py": TRAIN.replace("{body}", body)})
    assert findings(tmp_path, "core/trades.py") == []
