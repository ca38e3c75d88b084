"""What a function's own name says (R8, 2026-11-26 night, the lead; found on holdout16's DiGress,
tuned there): ``get_train_smiles`` gets the training split's molecules, it does not train, so the
copies its data loop makes are R8's copies in code that trains nothing; ``train_epoch`` says it
trains and keeps its copies flagged."""

import pytest

from torchperf_lint.analysis.inference_calls import names_training
from torchperf_lint.engine import lint_source

from _diagnostics import CPU_SYNC as COPY


SOURCE = """\
import torch


def {name}(datamodule, to_dense):
    molecules = []
    for data in datamodule.dataloaders["train"]:
        dense = to_dense(data.x.cuda(), data.edge_index.cuda())
        for k in range(dense.size(0)):
            molecules.append(dense[k].cpu())
    return molecules
"""


@pytest.mark.parametrize("name", ["get_train_smiles", "load_train_data", "log_train_metrics"])
def test_a_getter_of_training_data_trains_nothing(name):
    assert not names_training(name)
    assert lint_source(SOURCE.format(name=name), "data.py", codes=("TPL102",)) == []


@pytest.mark.parametrize("name", ["train_epoch", "do_train", "run_training", "make_train_step"])
def test_a_function_that_says_it_trains_keeps_its_copies_flagged(name):
    assert names_training(name)
    found = [(f.code, f.line, f.col, f.message) for f in lint_source(SOURCE.format(name=name), "data.py",
                                                                      codes=("TPL102",))]
    assert found == [("TPL102", 9, 29, COPY)]
