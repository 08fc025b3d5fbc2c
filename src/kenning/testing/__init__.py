"""Test doubles and helpers that ship with Kenning, for its tests and yours.

Nothing here reaches the network. It offers an isolated home and a
deterministic embedder; later layers add theirs (a scripted model).
"""

from kenning.testing.embedders import FakeEmbedder
from kenning.testing.homes import isolated_home, make_home

__all__ = ["FakeEmbedder", "isolated_home", "make_home"]
