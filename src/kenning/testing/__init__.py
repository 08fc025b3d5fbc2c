"""Test doubles and helpers that ship with Kenning, for its tests and yours.

Nothing here reaches the network. Later layers add their doubles here (a
scripted model, a deterministic embedder); today it offers an isolated home.
"""

from kenning.testing.homes import isolated_home, make_home

__all__ = ["isolated_home", "make_home"]
