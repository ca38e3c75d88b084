"""Thin layers over the engine: the CLI, the flake8 plugin, output formats, configuration, the cache."""
