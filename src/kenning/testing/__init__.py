"""Test doubles and helpers that ship with Kenning, for its tests and yours.

Nothing here reaches the network. It offers an isolated home, a
deterministic embedder, scripted and function-driven models
(``ScriptedModel``, ``FunctionModel``, ``tool_call``, ``reply``), a frozen
clock every part of Kenning reads (``frozen_clock``); the
wire-format servers live in ``kenning.testing.wire``.
"""

from kenning.clock import FrozenClock
from kenning.testing.clock import frozen_clock
from kenning.testing.embedders import FakeEmbedder
from kenning.testing.homes import isolated_home, make_home
from kenning.testing.models import (
    FunctionModel,
    ModelCall,
    ScriptedModel,
    reply,
    tool_call,
)

__all__ = [
    "FakeEmbedder",
    "FrozenClock",
    "FunctionModel",
    "ModelCall",
    "ScriptedModel",
    "frozen_clock",
    "isolated_home",
    "make_home",
    "reply",
    "tool_call",
]
