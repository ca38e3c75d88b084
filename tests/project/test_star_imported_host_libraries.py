"""numpy brought by a star import (KGAT-pytorch, holdout82): ``from utils.log_helper import *``
binds ``np`` there, and the training loop checks ``np.isnan(batch_loss.cpu().detach().numpy())``:
a copy handed to numpy, which the host must have (R3; rules.md "A step body"). A module's own
bindings win over what a star import brings."""

from __future__ import annotations

from _diagnostics import SYNC_TEMPLATE as SYNC
from _project_files import findings, write


HELPERS = """
    import logging
    {numpy}


    def log_loss(value):
        logging.info("loss %s", value)
    """
TRAIN = """
    import sys

    import torch
    from helpers import *


    def train(model, loader, optimizer):
        for x in loader:
            batch_loss = model(x.cuda()).mean()
            if np.isnan(batch_loss.cpu().detach().numpy()):
                sys.exit()
            batch_loss.backward()
            optimizer.step()
    """


def test_numpy_brought_by_a_star_import_is_a_host_library(tmp_path):
    write(tmp_path, {"setup.py": "", "helpers.py": HELPERS.replace("{numpy}", "import numpy as np"), "train.py": TRAIN})
    assert findings(tmp_path, "train.py") == []


def test_a_name_no_star_import_binds_is_not_known_to_be_numpy(tmp_path):
    write(tmp_path, {"setup.py": "", "helpers.py": HELPERS.replace("{numpy}", "np = None"), "train.py": TRAIN})
    assert findings(tmp_path, "train.py") == [("TPL102", 10, 20, SYNC.format(what="`.cpu()`"))]
