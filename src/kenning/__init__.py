"""Kenning: a self-improving agent runtime whose centre is a layered memory system.

The layers (see DESIGN.md): hot memory (``kenning.memory``), the archive,
skills, the context engine and the learning loop. Everything Kenning writes
lives under one home directory (``kenning.paths``), which is a git repository
(``kenning.history``).

The public Python API is what this module exports (``__all__``): ``Home`` and
``Agent`` with the values and errors they use (README, "Use Kenning from
Python"). Every other module is internal.
"""

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

from kenning.agent.events import (
    Event,
    ModelReplied,
    Notice,
    TextChunk,
    ToolFinished,
    ToolStarted,
    TurnEnded,
    TurnStarted,
)
from kenning.agent.transcript import TranscriptError
from kenning.api import (
    Agent,
    Hit,
    Hits,
    Home,
    HomeClosedError,
    RunResult,
    SessionNotFoundError,
)
from kenning.config import ConfigError
from kenning.journal import JournalError
from kenning.memory.store import MemoryFileError, MemoryWriteError, Target
from kenning.models.errors import ModelError, ModelNotConfigured
from kenning.paths import InvalidProfileError

if TYPE_CHECKING:
    from kenning.skills.errors import SkillError

# Exported names whose modules are costly to load (the skills package reads
# YAML); loaded on first access (PEP 562) so `import kenning` stays cheap.
_LAZY = {"SkillError": "kenning.skills.errors"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'kenning' has no attribute {name!r}")


__all__ = [
    "Agent",
    "ConfigError",
    "Event",
    "Hit",
    "Hits",
    "Home",
    "HomeClosedError",
    "InvalidProfileError",
    "JournalError",
    "MemoryFileError",
    "MemoryWriteError",
    "ModelError",
    "ModelNotConfigured",
    "ModelReplied",
    "Notice",
    "RunResult",
    "SessionNotFoundError",
    "SkillError",
    "Target",
    "TextChunk",
    "ToolFinished",
    "ToolStarted",
    "TranscriptError",
    "TurnEnded",
    "TurnStarted",
    "__version__",
]
