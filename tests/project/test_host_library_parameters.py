"""A copy handed to a project function that hands it to a host library (issue 20, holdout6;
rules.md "A step body": a value handed to ``np.*`` is one the host must have; R3): DiffSinger's
``plot_dur`` copies a tensor and hands it to ``dur_to_figure`` in ``utils/plot.py``, which
``np.cumsum``s and plots it. The project index records which parameters of each function reach a
host library (analysis/host_library_parameters.py). Each file is linted by its real path."""

from __future__ import annotations

from _diagnostics import CPU_SYNC as CPU
from _project_files import findings, write


PLOT = """
    import numpy as np
    import torch


    def dur_to_figure(dur_gt, title=None):
        dur_gt = dur_gt.astype(np.int64)
        dur_gt = np.cumsum(dur_gt)
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots()
        ax.vlines(dur_gt, 0, 10)
        return fig


    def dur_summary(dur_gt, title=None):
        return {"title": title, "frames": len(dur_gt)}
    """

TASK = """
    import torch
    from utils.plot import dur_to_figure


    def train(model, loader, optimizer, writer):
        for step, batch in enumerate(loader):
            dur = model(batch.cuda())
            dur.mean().backward()
            optimizer.step()
            gt_dur = dur[0].cpu().numpy()
            writer.add_figure("dur", dur_to_figure(gt_dur, title="dur"), step)
    """


def test_a_copy_another_file_hands_to_numpy_and_matplotlib_is_host_needed(tmp_path):
    """The parameter reaches ``np.cumsum`` through a name made from it, and ``ax.vlines`` (an object
    matplotlib made, imported inside the function)."""
    write(tmp_path, {"setup.py": "", "utils/__init__.py": "", "utils/plot.py": PLOT, "task.py": TASK})
    assert findings(tmp_path, "task.py") == []


def test_a_copy_another_file_only_counts_still_syncs(tmp_path):
    """Flagged twin: the function the copy goes to reads its length only."""
    write(tmp_path, {"setup.py": "", "utils/__init__.py": "", "utils/plot.py": PLOT,
                     "task.py": TASK.replace("dur_to_figure", "dur_summary")})
    assert findings(tmp_path, "task.py") == [("TPL102", 10, 17, CPU)]


PLOTS = """
    import numpy as np


    class Plotter:
        def __init__(self):
            self.data = []

        def plot(self, x):
            return np.array(self.data), len(x)


    plotter = Plotter()
    """

USER = """
    import torch
    import plots


    def train(model, loader, optimizer):
        for batch in loader:
            out = model(batch.cuda())
            out.mean().backward()
            optimizer.step()
            plots.plotter.plot(out[0].cpu().numpy())
    """


def test_a_copy_handed_to_another_module_s_instance_method_binds_x_not_self(tmp_path):
    """The method's ``self`` reaches numpy (``np.array(self.data)``), its ``x`` only gives a length;
    the copy handed through the module's instance binds ``x``: it still syncs."""
    write(tmp_path, {"setup.py": "", "plots.py": PLOTS, "task.py": USER})
    assert findings(tmp_path, "task.py") == [("TPL102", 10, 27, CPU)]


EVALUATE = """
    import numpy as np
    from core.inference import get_max_preds


    def accuracy(output, target, thr=0.5):
        pred, _ = get_max_preds(output)
        target, _ = get_max_preds(target)
        norm = np.ones((pred.shape[0], 2)) * np.array([output.shape[2], output.shape[3]]) / 10
        return float((pred - target).sum() < thr * norm.sum())


    def shape_of(output, target):
        return count_of(output), count_of(target)


    def count_of(array):
        return len(array)
    """

INFERENCE = """
    import numpy as np


    def get_max_preds(batch_heatmaps):
        reshaped = batch_heatmaps.reshape((batch_heatmaps.shape[0], batch_heatmaps.shape[1], -1))
        return np.argmax(reshaped, 2), np.amax(reshaped, 2)
    """

POSE_TRAIN = """
    import torch
    from core.evaluate import accuracy


    def train(model, loader, optimizer):
        for images, target in loader:
            output = model(images.cuda())
            loss = (output - target.cuda()).pow(2).mean()
            loss.backward()
            optimizer.step()
            acc = accuracy(output.detach().cpu().numpy(), target.detach().cpu().numpy())
    """


def test_a_copy_handed_on_to_a_function_that_hands_it_to_numpy_is_host_needed(tmp_path):
    """HRNet's ``accuracy(output.cpu().numpy(), target.cpu().numpy())`` every step: ``accuracy``
    hands both to ``get_max_preds`` (another file), which ``np.argmax``es them: the copies are what
    the host computes with (R3), two calls down. Flagged twin: the function they are handed on to
    only counts them."""
    files = {"setup.py": "", "core/__init__.py": "", "core/evaluate.py": EVALUATE,
             "core/inference.py": INFERENCE, "train.py": POSE_TRAIN}
    write(tmp_path, files)
    assert findings(tmp_path, "train.py") == []
    counted = tmp_path / "counted"
    write(counted, {**files, "train.py": POSE_TRAIN.replace("accuracy(", "shape_of(").replace(
        "import accuracy", "import shape_of")})
    assert findings(counted, "train.py") == [("TPL102", 11, 23, CPU)]  # one finding a line
