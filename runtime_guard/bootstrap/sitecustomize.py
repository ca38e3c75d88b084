"""Every process started from a ``python -m runtime_guard`` run is guarded: torchrun's ranks,
``mp.spawn`` / ``multiprocessing`` spawn children, Lightning's relaunched ranks.

``python -m runtime_guard`` puts this directory first on ``PYTHONPATH`` and sets
``RUNTIME_GUARD_INHERIT=1``; each Python process started below it imports this ``sitecustomize``
at start-up (``site`` does), which:

- runs the ``sitecustomize`` this one shadows, if the environment has one, so nothing changes for
  the process apart from the guard;
- installs the guard when the process imports torch, not before: a child that never imports torch
  (a compiler probe, pip, a shell helper) pays nothing and is not changed. The guard is configured
  by the same ``RUNTIME_GUARD*`` environment the runner set from its options.
"""

import importlib.abc
import importlib.machinery
import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))


def _chain():
    """Import the next ``sitecustomize`` on sys.path (the one this module shadows)."""
    path = [entry for entry in sys.path if os.path.abspath(entry or ".") != _HERE]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", path)
    if spec is None or spec.loader is None:
        return
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as exc:  # as site does for a failing sitecustomize: say so and go on
        print(f"Error in sitecustomize; set PYTHONVERBOSE for traceback:\n"
              f"{type(exc).__name__}: {exc}", file=sys.stderr)


class _AfterTorch(importlib.abc.MetaPathFinder):
    """Finds nothing itself; once ``torch`` has been imported, imports runtime_guard."""

    def find_spec(self, name, path=None, target=None):
        if name != "torch":
            return None
        try:
            sys.meta_path.remove(self)
        except ValueError:
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None:
            return spec
        loader = spec.loader
        exec_module = loader.exec_module

        def exec_then_guard(module):
            exec_module(module)
            _guard()

        loader.exec_module = exec_then_guard
        return spec


def _guard():
    try:
        import runtime_guard  # noqa: F401  (installs from the environment at import)
    except ImportError:
        parent = os.path.dirname(os.path.dirname(_HERE))
        if parent not in sys.path:
            sys.path.append(parent)
            import runtime_guard  # noqa: F401,F811


import importlib.util  # noqa: E402  (after the class definitions only for readability)

_chain()
if os.environ.get("RUNTIME_GUARD_INHERIT") == "1" and os.environ.get("RUNTIME_GUARD") != "off":
    if "torch" in sys.modules:
        _guard()
    else:
        sys.meta_path.insert(0, _AfterTorch())
