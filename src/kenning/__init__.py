"""Kenning: a self-improving agent runtime whose centre is a layered memory system.

The layers (see DESIGN.md): hot memory (``kenning.memory``), the archive,
skills, the context engine and the learning loop. Everything Kenning writes
lives under one home directory (``kenning.paths``), which is a git repository
(``kenning.history``).
"""

__version__ = "0.1.0"

from kenning.home import Home
from kenning.memory.store import Target

__all__ = ["Home", "Target", "__version__"]
