"""Test doubles and helpers that ship with Kenning, for its tests and yours.

Nothing here reaches the network. It offers an isolated home, a
deterministic embedder, scripted and function-driven models
(``ScriptedModel``, ``FunctionModel``, ``tool_call``, ``reply``); the
wire-format servers live in ``kenning.testing.wire``.
"""

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
    "FunctionModel",
    "ModelCall",
    "ScriptedModel",
    "isolated_home",
    "make_home",
    "reply",
    "tool_call",
]
