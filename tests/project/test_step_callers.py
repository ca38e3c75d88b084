"""Functions that perform one step through a project function (the lead's reading R18 of rules.md
"A step body"): multi-file fixture projects, each file linted by its real path."""

from __future__ import annotations

from pathlib import Path

from torchperf_lint.engine import lint_source

from _diagnostics import ITEM_SYNC as SYNC
from _project_files import findings_without_col as findings, write

TOLIST = SYNC.replace("`.item()`", "`.tolist()`")


def related(root: Path, name: str):
    path = root / name
    return [(f.line, f.related) for f in lint_source(path.read_text(), str(path), codes=("TPL102",))]


# XLM's shape: ``optimize`` calls backward (and steps each of its optimizers in a loop: one step);
# ``mlm_step`` logs ``loss.item()`` and calls ``self.optimize``; ``clm_step`` calls ``update``, which
# has the gradients computed by a base class in another module and steps the optimizer itself;
# train.py calls them in a loop that the rules cannot see as a step loop (it iterates language pairs
# and calls no model).
XLM_LIKE = {
    "pyproject.toml": "[project]\nname = 'xlmlike'\n",
    "xlmlike/__init__.py": "",
    "xlmlike/base.py": """
        import torch


        class BaseTrainer:
            def compute_gradients(self, loss):
                loss.backward()
        """,
    "xlmlike/trainer.py": """
        import torch
        from xlmlike.base import BaseTrainer


        class Trainer(BaseTrainer):
            def __init__(self, model, optimizers):
                self.model = model
                self.optimizers = optimizers
                self.optimizer = optimizers[0]
                self.stats = []
                self.warm_up()

            def optimize(self, loss):
                for optimizer in self.optimizers:
                    optimizer.zero_grad()
                loss.backward()
                for optimizer in self.optimizers:
                    optimizer.step()

            def mlm_step(self, x):
                loss = self.model(x.cuda()).sum()
                self.stats.append(loss.item())
                self.optimize(loss)

            def clm_step(self, x):
                loss = self.model(x.cuda()).mean()
                self.stats.append(loss.item())
                self.update(loss)

            def update(self, loss):
                self.compute_gradients(loss)
                self.optimizers[0].zero_grad()
                self.optimizer.step()

            def warm_up(self):
                loss = self.model(torch.zeros(2, device="cuda")).sum()
                print(loss.item())
                self.optimize(loss)

            def run_steps(self, batches):
                print(self.model.weight.sum().item())
                for x in batches:
                    self.mlm_step(x)

            def guarded_step(self, x, step):
                loss = self.model(x.cuda()).sum()
                print(loss.item())
                if step % 100 == 0:
                    self.optimize(loss)
        """,
    "train.py": """
        import torch
        from xlmlike.trainer import Trainer


        def main(model, optimizers, pairs, batches):
            trainer = Trainer(model, optimizers)
            for epoch in range(10):
                for lang in pairs:
                    trainer.mlm_step(batches[lang])
                    trainer.clm_step(batches[lang])
                    trainer.guarded_step(batches[lang], epoch)
            trainer.run_steps(batches)


        if __name__ == "__main__":
            main(None, [], [], {})
        """,
}


def test_a_method_that_calls_a_step_function_is_a_step_body_with_the_reason(tmp_path):
    write(tmp_path, XLM_LIKE)
    assert findings(tmp_path, "xlmlike/trainer.py") == [
        # ``run_steps`` calls ``mlm_step`` in a loop, which that call makes a step loop: a function
        # called from a step loop keeps the loop's chain (step_bodies: R18 roots come after)
        ("TPL102", 22, SYNC + " (called every step from xlmlike/trainer.py:43)"),
        ("TPL102", 27, SYNC + " (runs one step: calls update (xlmlike/trainer.py:30), which calls "
                              "compute_gradients (xlmlike/base.py:5), which calls backward)"),
    ]


def test_related_locations_name_each_call_down_to_the_backward(tmp_path):
    write(tmp_path, XLM_LIKE)
    trainer = str(tmp_path / "xlmlike/trainer.py")
    assert related(tmp_path, "xlmlike/trainer.py") == [
        (22, ((trainer, 43, "called every step from here (in run_steps)"),)),
        (27, ((trainer, 28, "runs one step here: calls update"),
              (trainer, 31, "runs one step here: calls compute_gradients"))),
    ]


def test_run_once_callers_loops_and_intervals_keep_a_caller_out(tmp_path):
    """``warm_up`` runs once (``__init__``), ``run_steps`` calls the step function in its own loop,
    ``guarded_step`` calls it only under an interval: none of them performs one step per call
    (their ``.item()`` lines 37, 41, 47 are silent)."""
    write(tmp_path, XLM_LIKE)
    lines = [line for _, line, _ in findings(tmp_path, "xlmlike/trainer.py")]
    assert lines == [22, 27]


def test_a_function_called_once_from_module_level_is_no_step_body(tmp_path):
    write(tmp_path, {
        "pyproject.toml": "",
        "train.py": """
            import torch


            def optimize(loss, opt):
                loss.backward()
                opt.step()


            def one_step(model, x, opt):
                loss = model(x.cuda()).sum()
                optimize(loss, opt)
                return loss.item()


            def main(model, x, opt):
                print(one_step(model, x, opt))


            if __name__ == "__main__":
                main(None, None, None)
            """,
    })
    assert findings(tmp_path, "train.py") == []


def test_without_a_visible_caller_a_step_caller_stays_a_step_body(tmp_path):
    write(tmp_path, {
        "pyproject.toml": "",
        "steps.py": """
            import torch


            def optimize(loss, opt):
                loss.backward()
                opt.step()


            def one_step(model, x, opt):
                loss = model(x.cuda()).sum()
                optimize(loss, opt)
                return loss.item()


            def many_steps(model, xs, opt):
                print(model.weight.sum().item())
                for x in xs:
                    one_step(model, x, opt)
            """,
    })
    # ``many_steps`` calls the step function in its own loop: it runs many steps, not one (line 16),
    # and that loop is a step loop (it calls a function that performs one step), whose chain
    # ``one_step`` keeps
    assert findings(tmp_path, "steps.py") == [
        ("TPL102", 12, SYNC + " (called every step from steps.py:18)"),
    ]


def test_at_most_three_callers_up(tmp_path):
    """level1 .. level3 perform one step through optimize; level4 is four calls up: not followed."""
    write(tmp_path, {
        "pyproject.toml": "",
        "deep.py": """
            import torch


            def optimize(loss, opt):
                loss.backward()
                opt.step()


            def level1(loss, opt):
                optimize(loss, opt)


            def level2(loss, opt):
                level1(loss, opt)


            def level3(loss, opt):
                print(loss.item())
                level2(loss, opt)


            def level4(loss, opt):
                print(loss.item())
                level3(loss, opt)
            """,
    })
    assert findings(tmp_path, "deep.py") == [
        ("TPL102", 18, SYNC + " (runs one step: calls level2 (deep.py:13), which calls level1 (deep.py:9), "
                              "which calls optimize (deep.py:4), which calls backward)"),
    ]


def test_a_loop_stepping_each_of_several_optimizers_does_not_drive_training(tmp_path):
    """``for optimizer in optimizers: optimizer.step()`` is one step over several optimizers: the
    function still performs one step (its own ``.item()`` is flagged), while one that also holds a
    loop over batches drives training (a warm-up step before its loop: silent), whether it calls
    backward itself (``fit``, ``fit_batches``: their loops step no item of theirs) or through a step
    function (``train``)."""
    write(tmp_path, {
        "pyproject.toml": "",
        "gan.py": """
            import torch


            def optimize(loss, optimizers):
                loss.backward()
                for optimizer in optimizers:
                    optimizer.step()
                return loss.item()


            def fit(model, loader, optimizers):
                loss = model(next(iter(loader))).sum()
                loss.backward()
                for x in loader:
                    loss = model(x).sum()
                    loss.backward()
                    for optimizer in optimizers:
                        optimizer.step()
                return loss.item()


            def fit_batches(model, batches, optimizer):
                loss = model(batches[0]).sum()
                loss.backward()
                for x in batches:
                    model(x).sum().backward()
                    optimizer.step()
                return loss.item()


            def train(model, loader, optimizers):
                loss = model(next(iter(loader))).sum()
                optimize(loss, optimizers)  # a check step before the loop
                for x in loader:
                    optimize(model(x).sum(), optimizers)
                return loss.item()
            """,
    })
    assert findings(tmp_path, "gan.py") == [("TPL102", 8, SYNC)]


def test_a_caller_of_a_function_that_only_computes_gradients_performs_no_step(tmp_path):
    """``get_grads`` calls backward and steps nothing (gradients for a plot): a step body by the
    letter of rules.md, but ``plot_activation`` performs no training step through it, even when
    called from a loop; ``check_step`` steps the optimizer after the gradients: a training step."""
    write(tmp_path, {
        "pyproject.toml": "",
        "notebook.py": """
            import torch


            def get_grads(act_fn, x):
                x = x.clone().requires_grad_()
                act_fn(x).sum().backward()
                return x.grad


            def plot_activation(act_fn, x):
                grads = get_grads(act_fn, x)
                print(grads.cpu())


            def check_step(act_fn, x, optimizer):
                grads = get_grads(act_fn, x)
                optimizer.step()
                return grads.sum().item()


            for fn in [torch.tanh, torch.relu]:
                plot_activation(fn, torch.linspace(-5, 5, 100).cuda())
            """,
    })
    assert findings(tmp_path, "notebook.py") == [
        ("TPL102", 18, SYNC + " (runs one step: calls get_grads (notebook.py:4), which calls backward)"),
    ]


# Dassl's shape: the base class's ``model_backward_and_update`` calls ``model_backward`` (its own
# backward) and then ``model_update``, which steps each optimizer of a dict (``self._optims[name]``);
# a subclass's ``forward_backward`` logs ``.item()`` values and calls ``model_backward_and_update``.
# A base-class method that only computes gradients (``grads_only``) updates nothing: its caller
# ``probe`` performs no step.
DASSL_LIKE = {
    "pyproject.toml": "[project]\nname = 'dassllike'\n",
    "dassllike/__init__.py": "",
    "dassllike/engine/__init__.py": "from .trainer import TrainerX  # isort:skip\n",
    "dassllike/engine/trainer.py": """
        import torch


        class TrainerX:
            def model_zero_grad(self, names):
                for name in names:
                    if self._optims[name] is not None:
                        self._optims[name].zero_grad()

            def model_backward(self, loss):
                loss.backward()

            def model_update(self, names):
                for name in names:
                    if self._optims[name] is not None:
                        self._optims[name].step()

            def model_backward_and_update(self, loss, names=None):
                self.model_zero_grad(names)
                self.model_backward(loss)
                self.model_update(names)

            def grads_only(self, loss):
                self.model_backward(loss)
        """,
    "dassllike/engine/vanilla.py": """
        import torch.nn.functional as F

        from dassllike.engine import TrainerX


        class Vanilla(TrainerX):
            def forward_backward(self, batch):
                output = self.model(batch[0])
                loss = F.cross_entropy(output, batch[1])
                self.model_backward_and_update(loss)
                return {"loss": loss.item()}

            def probe(self, batch):
                loss = self.model(batch[0]).sum()
                self.grads_only(loss)
                return loss.item()
        """,
}


def test_a_step_through_a_base_class_that_steps_a_dict_of_optimizers(tmp_path):
    write(tmp_path, DASSL_LIKE)
    assert findings(tmp_path, "dassllike/engine/vanilla.py") == [
        ("TPL102", 11, SYNC + " (runs one step: calls model_backward_and_update "
                              "(dassllike/engine/trainer.py:18), which calls model_backward "
                              "(dassllike/engine/trainer.py:10), which calls backward)"),
    ]


STAR_IMPORT = {
    "pyproject.toml": "",
    "pkg/__init__.py": "",
    "pkg/train_utils.py": """
        import torch


        def log_losses(out, it):
            print('[%d] loss %.4f' % (it, out['overall'].item()))


        def summarize(out):
            print(out['overall'].item())


        def recursive_to(obj, device):
            if device == 'cpu':
                return obj.cpu()
            return obj.cuda(device=device, non_blocking=True)
        """,
    "train.py": """
        import torch
        from pkg.misc import *
        from pkg.train_utils import *


        def main(model, loader, optimizer, device):
            for it, batch in enumerate(loader):
                batch = recursive_to(batch, device)
                out = model(batch)
                out['features'] = recursive_to(out['features'], device)
                out['overall'].backward()
                optimizer.step()
                log_losses(out, it)
            summarize(out)


        if __name__ == "__main__":
            main(None, [], None, 'cuda')
        """,
    "pkg/misc.py": """
        def log_losses(out, it):
            # shadowed: train.py star-imports train_utils after misc
            print(out['overall'].item())
        """,
}


def test_a_helper_reached_through_a_star_import_is_called_every_step(tmp_path):
    """``from pkg.train_utils import *`` binds ``log_losses``: the per-step call reaches it (the later
    star import wins over misc's). ``summarize`` runs once after the loop; ``recursive_to`` copies to
    the host only under ``device == 'cpu'``, where its caller asked for the host: both silent."""
    write(tmp_path, STAR_IMPORT)
    assert findings(tmp_path, "pkg/train_utils.py") == [
        ("TPL102", 5, SYNC + " (called every step from train.py:13)"),
    ]
    assert findings(tmp_path, "pkg/misc.py") == []
