"""The composition root: a ready agent session from a home and a model string.

It sits above the agent loop, the context engine and the learning loop and is
the one place that wires them together (``factory``); none of them imports it.
"""

from kenning.runtime.factory import build_tools, open_session

__all__ = ["build_tools", "open_session"]
