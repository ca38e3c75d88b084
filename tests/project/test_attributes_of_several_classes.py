"""An attribute ``__init__`` binds to instances of several project classes in its branches (R157):
DQN-Atari-Agents' C51 agent (holdout178) builds ``self.qnetwork_target`` as a ``DDQN_C51`` or a
``Dueling_C51Network`` by its settings, and its update calls ``self.qnetwork_target.act(...)``
every step: both classes' ``act`` run every step, not only the last one bound. Whole diagnostics,
flagged and silent twins."""

from __future__ import annotations

import textwrap
from pathlib import Path

from _diagnostics import CPU_SYNC, SYNC_TEMPLATE as SYNC
from _project_files import findings_without_col, write

NETWORKS = """
    import torch
    import torch.nn as nn


    class DuelingNetwork(nn.Module):
        def forward(self, x):
            return x

        def act(self, state):
            return self.forward(state).cpu()


    class PlainNetwork(nn.Module):
        def forward(self, x):
            return x

        def act(self, state):
            return self.forward(state).cpu()
    """

AGENT = """
    import torch
    from networks import DuelingNetwork, PlainNetwork


    class Agent:
        def __init__(self, dueling):
            if dueling:
                self.target = {first}
            else:
                self.target = {second}
            self.optimizer = torch.optim.Adam([])

        def learn(self, states):
            actions = self.target.act(states)
            loss = actions.sum()
            loss.backward()
            self.optimizer.step()
    """


def _chain(line: int) -> str:
    return f"{CPU_SYNC} (called every step from agent.py:{line} via learn)"


def test_each_class_an_attribute_may_hold_runs_every_step(tmp_path: Path):
    write(tmp_path, {"networks.py": NETWORKS,
                     "agent.py": AGENT.format(first="DuelingNetwork().cuda()", second="PlainNetwork().cuda()")})
    assert findings_without_col(tmp_path, "networks.py") == [
        ("TPL102", 10, _chain(14)), ("TPL102", 18, _chain(14))]


def test_a_class_the_attribute_never_holds_is_not_reached(tmp_path: Path):
    """The twin: both branches build the same class; the other class's ``act`` is called by nothing."""
    write(tmp_path, {"networks.py": NETWORKS,
                     "agent.py": AGENT.format(first="PlainNetwork().cuda()", second="PlainNetwork()")})
    assert findings_without_col(tmp_path, "networks.py") == [("TPL102", 18, _chain(14))]


FLOWS = {
    "transforms.py": """
        import torch


        def bounded_spline(inputs, left):
            if torch.min(inputs) < left:
                raise ValueError("input outside the domain")
            return inputs


        def open_spline(inputs, left):
            return bounded_spline(inputs.clamp(min=left), left)


        def spline_transform(inputs, tails):
            if tails is None:
                spline_fn = bounded_spline
            else:
                spline_fn = open_spline
            return spline_fn(inputs, 0.0)
        """,
    "modules.py": """
        import torch.nn as nn
        from transforms import spline_transform


        class Flip(nn.Module):
            def forward(self, x):
                return x.flip(1)


        class ConvFlow(nn.Module):
            def forward(self, x):
                return spline_transform(x, "linear")
        """,
    "models.py": """
        import torch.nn as nn
        import modules


        class FlowBlock(nn.Module):
            def __init__(self, n_flows):
                super().__init__()
                self.flows = nn.ModuleList()
                for _ in range(n_flows):
                    self.flows.append({appended})
                    self.flows.append(modules.Flip())

            def forward(self, x, reverse=False):
                for flow in {iterated}:
                    x = flow(x)
                return x
        """,
    "train.py": """
        import torch
        from models import FlowBlock


        def train(loader):
            model = FlowBlock(4).cuda()
            optimizer = torch.optim.Adam(model.parameters())
            for x in loader:
                loss = model(x.cuda()).sum()
                loss.backward()
                optimizer.step()
        """,
}


def _flows(root: Path, appended: str, iterated: str = "self.flows") -> None:
    files = dict(FLOWS)
    files["models.py"] = files["models.py"].format(appended=appended, iterated=iterated)
    write(root, files)


def test_each_class_a_container_holds_runs_when_its_items_are_called(tmp_path: Path):
    """R158: VITS' flows (MeloTTS, pl_tts, holdout174): ``__init__`` appends a ``ConvFlow`` and a
    ``Flip`` in a loop, ``forward`` calls each item (also over ``reversed(self.flows)``); the
    ``ConvFlow`` picks its spline by a branch (``spline_fn = bounded_spline`` / ``= open_spline``)
    whose test of ``torch.min(inputs) < left`` waits every step."""
    for folder, iterated in (("plain", "self.flows"), ("reversed", "reversed(self.flows)")):
        root = tmp_path / folder  # (one project per form: a run reads each file once)
        _flows(root, "modules.ConvFlow()", iterated)
        assert findings_without_col(root, "transforms.py") == [
            ("TPL102", 5, SYNC.format(what="testing a tensor's truth")
             + " (called every step from train.py:9 via forward → forward → spline_transform)")], iterated


def test_a_container_of_one_class_reaches_only_that_class(tmp_path: Path):
    """The twin: ``__init__`` appends only ``Flip``s (and a ``ConvFlow`` made elsewhere is never
    called): the spline is not reached."""
    _flows(tmp_path, "modules.Flip()")
    assert findings_without_col(tmp_path, "transforms.py") == []


QUALITY = {
    "metrics.py": """
        import torch


        class PanopticQuality:
            def compute(self, pred, target):
                iou = (pred == target).float().mean()
                if iou > 0.5:
                    return 1.0
                return 0.0
        """,
    "model.py": """
        import torch
        import pytorch_lightning as pl
        from metrics import PanopticQuality as {alias}


        class Segmenter(pl.LightningModule):
            def __init__(self):
                super().__init__()
                self.net = torch.nn.Linear(4, 4)
                self.quality = {alias}()

            def validation_step(self, batch, batch_idx):
                pred = self.net(batch["x"])
                self.log("pq", self.quality.compute(pred, batch["y"]))
        """,
}


def test_an_instance_of_a_class_imported_under_a_lower_case_alias(tmp_path: Path):
    """R159: HAPT (holdout179) imports ``PanopticQuality as pq`` and binds ``self.pq_p = pq()`` in
    ``__init__``; ``validation_step`` calls ``self.pq_p.compute_pq(...)`` every step. A lower-case name
    imported from the project is read as the class it names (the walk keeps only classes). The
    upper-case alias gives the same finding."""
    for alias in ("pq", "Quality"):
        root = tmp_path / alias
        files = {name: text.format(alias=alias) for name, text in QUALITY.items()}
        write(root, files)
        assert findings_without_col(root, "metrics.py") == [
            ("TPL102", 7, SYNC.format(what="testing a tensor's truth")
             + " (called every step from model.py:14 via validation_step)")], alias


def test_an_instance_a_factory_named_so_returns(tmp_path: Path):
    """R159: RVT (holdout152) binds ``self.yolox_head = build_yolox_head(...)``, an imported project
    function that returns ``YOLOXHead(...)``: its methods run every step. The twin: a function not
    named as a factory (``get_quality``) is not read as one (over a library, most such calls make
    tensors: ``self.kernel = get_gaussian_kernel2d(...)``)."""
    for factory, expected in (("build_quality", [("TPL102", 7, SYNC.format(what="testing a tensor's truth")
                                                  + " (called every step from model.py:14 via validation_step)")]),
                              ("get_quality", [])):
        root = tmp_path / factory
        files = {"metrics.py": textwrap.dedent(QUALITY["metrics.py"]) + f"\n\ndef {factory}():\n    return PanopticQuality()\n",
                 "model.py": QUALITY["model.py"].replace("PanopticQuality as {alias}", factory).replace(
                     "{alias}()", f"{factory}()")}
        write(root, files)
        assert findings_without_col(root, "metrics.py") == expected, factory
