"""Kenning's version, in a module of its own so that any package can name it without
importing the public API (``kenning/__init__.py`` names the agent and the stores)."""

__version__ = "0.1.0"  # keep equal to pyproject.toml's version (tests/test_architecture.py checks)
