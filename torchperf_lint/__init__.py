"""torchperf-lint: find and fix the performance pitfalls of PyTorch training code.

Importing this package is cheap on purpose (flake8 imports it at every start); the libcst engine
is imported only when a file is analysed.
"""

__version__ = "0.1.0"
