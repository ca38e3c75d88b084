"""``AllReduce.apply(x)`` of a project ``torch.autograd.Function`` gives a tensor where the tensors
it is given are: V-JEPA's ``float(AllReduce.apply(clips.view(...).var(dim=1).mean(dim=0)))`` every
step of its training loop (holdout127), with ``AllReduce`` imported from ``src/utils/distributed.py``."""

from __future__ import annotations

from pathlib import Path

from _project_files import findings, write

DISTRIBUTED = """
    import torch


    class AllReduce(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, grad):
            return grad


    class Reducer:
        @staticmethod
        def apply(x):
            return 1.0


    class SumAllReduce(AllReduce):
        pass
"""
TRAIN = """
    import torch
    from src.utils.distributed import {name}


    def train(model, loader, optimizer):
        for clips in loader:
            {place}
            loss = model(clips)
            loss.backward()
            optimizer.step()
            input_var = float({name}.apply(clips.var(dim=1).mean(dim=0)))
            print(input_var)
"""
FLOAT = ("`float()` of a tensor waits for the device in every iteration; keep values on the device (`total += "
         "loss.detach()`) and sync once after the loop or every N steps (runtime_guard: sync report)")


def _project(root: Path, name: str, place: str = "clips = clips.cuda(non_blocking=True)") -> list:
    write(root, {"setup.py": "", "src/__init__.py": "", "src/utils/__init__.py": "",
                 "src/utils/distributed.py": DISTRIBUTED,
                 "app/train.py": TRAIN.replace("{name}", name).replace("{place}", place)})
    return findings(root, "app/train.py")


def test_the_apply_of_an_imported_autograd_function_on_a_device_tensor_is_a_tensor(tmp_path):
    assert _project(tmp_path / "a", "AllReduce") == [("TPL102", 11, 20, FLOAT)]
    # through a project base that derives from the Function
    assert _project(tmp_path / "b", "SumAllReduce") == [("TPL102", 11, 20, FLOAT)]


def test_on_host_tensors_or_of_a_class_that_is_no_function_it_is_silent(tmp_path):
    assert _project(tmp_path / "a", "AllReduce", place="clips = clips.float()") == []
    assert _project(tmp_path / "b", "Reducer") == []
