"""The start-up hook of processes started below ``python -m runtime_guard`` (see sitecustomize.py).

This directory itself goes on ``PYTHONPATH``; the package marker only ships it in the wheel."""
