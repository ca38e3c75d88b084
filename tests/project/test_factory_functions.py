"""A model built by a project factory function (BLIP, holdout75): ``def blip_retrieval(**kw): model =
BLIP_Retrieval(**kw); if pretrained: model, msg = load_checkpoint(model, path); return model``, and
``model = blip_retrieval(...)`` in the training script. A call of a function every ``return`` of
which gives an instance of one project class is an instance of it (rules.md "The project": names
bound to instances of project classes), and a call handed the instance that rebinds the name to its
result (``model, msg = load_checkpoint(model, path)``) gives it back."""

from __future__ import annotations

from _diagnostics import SYNC_TEMPLATE as SYNC
from _project_files import findings, write


CHECKPOINTS = """
    def load_checkpoint(model, path):
        return model, "missing keys"
    """
MODEL = """
    import torch

    from checkpoints import load_checkpoint


    class Retrieval(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.linear = torch.nn.Linear(4, 4)

        def forward(self, x):
            sim = self.linear(x)
            k = torch.multinomial(sim.softmax(-1)[0], 1).item()
            return sim[:, k].mean()


    class Captioner(torch.nn.Module):
        def forward(self, x):
            return x.mean()


    def build(pretrained=""):
        model = Retrieval()
        if pretrained:
            model, msg = load_checkpoint(model, pretrained)
        return model
    """
TRAIN = """
    import torch

    from model import build


    def train(model, loader, optimizer):
        for x in loader:
            loss = model(x.cuda())
            loss.backward()
            optimizer.step()


    def main(loader):
        model = build(pretrained="ckpt.pth").cuda()
        train(model, loader, torch.optim.SGD(model.parameters(), lr=0.1))
    """


def test_a_factory_that_returns_one_project_class_builds_an_instance_of_it(tmp_path):
    write(tmp_path, {"setup.py": "", "checkpoints.py": CHECKPOINTS, "model.py": MODEL, "train.py": TRAIN})
    assert findings(tmp_path, "model.py") == [
        ("TPL102", 13, 12, SYNC.format(what="`.item()`") + " (called every step from train.py:8)")]


def test_a_factory_whose_returns_disagree_builds_nothing_known(tmp_path):
    model = MODEL.replace("        return model\n", "        return model if pretrained else Captioner()\n")
    write(tmp_path, {"setup.py": "", "checkpoints.py": CHECKPOINTS, "model.py": model, "train.py": TRAIN})
    assert findings(tmp_path, "model.py") == []
