"""TPL503: a training batch of one reaching BatchNorm.

BatchNorm cannot compute batch statistics from one sample and torch raises a bare
``ValueError: Expected more than 1 value per channel when training``, usually at the last, partial
batch of an epoch, long after the run started. The guard replaces that message with one that names
the DataLoader (where the script created it, its dataset size and batch size) and the remedy,
``drop_last=True``. It changes nothing else: the run still stops, as it would have.

``torch.nn.functional._verify_batch_size`` is looked up by ``F.batch_norm`` at call time, so
wrapping it catches every BatchNorm module (and direct ``F.batch_norm`` calls); it only runs in
training mode.
"""

from __future__ import annotations

import weakref

import torch.nn.functional as F
from torch.utils.data import DataLoader

from torchperf_lint.catalog import RUNTIME_BATCHNORM

from ..events import user_location
from .base import Fix

CODE = "TPL503"


class BatchNormGuardFix(Fix):
    name = RUNTIME_BATCHNORM
    codes = (CODE,)

    def _install(self):
        self.created = weakref.WeakKeyDictionary()  # loader -> where the script created it
        self.current = None  # weakref to the loader whose pass started last
        fix = self
        original_verify = F._verify_batch_size
        original_init = DataLoader.__init__
        original_iter = DataLoader.__iter__

        def __init__(loader, *args, **kwargs):
            result = original_init(loader, *args, **kwargs)
            if fix.active:
                try:
                    fix.created[loader] = user_location(1)
                except Exception as exc:
                    fix.fail(exc, "DataLoader.__init__")
            return result

        def __iter__(loader):
            if fix.active:
                try:
                    fix.current = weakref.ref(loader)
                except Exception as exc:
                    fix.fail(exc, "DataLoader.__iter__")
            return original_iter(loader)

        def _verify_batch_size(size):
            try:
                return original_verify(size)
            except ValueError as error:
                if not fix.active:
                    raise
                try:
                    message = fix.message(size, error)
                except Exception as exc:
                    fix.fail(exc, "message")
                    raise error
                if not fix.fixing:
                    fix.suggested(CODE, message)
                    raise
                # Not "fixed": the run stops here as it would without the guard; only the
                # message is clearer.
                fix.observed(CODE, "batch of one at BatchNorm: the run stopped (as it would "
                                   "without the guard); the error names the DataLoader and "
                                   "drop_last=True")
                raise ValueError(message) from error

        self.patch(F, "_verify_batch_size", _verify_batch_size)
        self.patch(DataLoader, "__init__", __init__)
        self.patch(DataLoader, "__iter__", __iter__)

    def message(self, size, error):
        loader = self.current() if self.current is not None else None
        text = (f"BatchNorm got a training batch of one sample (input size {tuple(size)}): "
                "batch statistics need at least two. ")
        if loader is not None and getattr(loader, "batch_size", None):
            where = self.created.get(loader, "unknown place")
            try:
                n = len(loader.dataset)
                rest = f"{n} samples, batch_size={loader.batch_size}: the last batch has " \
                       f"{n % loader.batch_size or loader.batch_size}"
            except Exception:
                rest = f"batch_size={loader.batch_size}"
            text += (f"The batch most likely comes from the DataLoader created at {where} ({rest}"
                     f"). Pass drop_last=True to that DataLoader to drop the partial last batch.")
        else:
            text += "Pass drop_last=True to the training DataLoader to drop a partial last batch."
        return f"{text} [runtime_guard {CODE}; torch said: {error}]"
