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

from kenning.version import __version__

if TYPE_CHECKING:
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
    from kenning.api.agent import Agent
    from kenning.api.errors import HomeClosedError, SessionNotFoundError
    from kenning.api.home import Home
    from kenning.api.results import Hit, Hits, RunResult
    from kenning.archive.importers.sources import ImportFormatError
    from kenning.config import ConfigError
    from kenning.context.transcript import TranscriptError
    from kenning.journal import JournalError
    from kenning.memory.store import MemoryFileError, MemoryWriteError, Target
    from kenning.models.errors import ModelError, ModelNotConfigured
    from kenning.paths import InvalidProfileError
    from kenning.skills.errors import SkillError

# Every name is imported on first access (PEP 562). Importing any submodule
# runs this file first: `python -m kenning --version`, `from kenning import
# clock`, a test's probe process. Eager imports here made each of them load
# the home, its stores and the threat screen (a second or two of CPU per
# process) before doing anything; now `kenning.Home` costs that when used.
_EVENTS = "kenning.agent.events"
_MEMORY = "kenning.memory.store"
_LAZY = {
    "Home": "kenning.api.home",
    "HomeClosedError": "kenning.api.errors",
    "SessionNotFoundError": "kenning.api.errors",
    "Hit": "kenning.api.results",
    "Hits": "kenning.api.results",
    "ConfigError": "kenning.config",
    "JournalError": "kenning.journal",
    "MemoryFileError": _MEMORY,
    "MemoryWriteError": _MEMORY,
    "Target": _MEMORY,
    "InvalidProfileError": "kenning.paths",
    "Agent": "kenning.api.agent",
    "RunResult": "kenning.api.results",
    "Event": _EVENTS,
    "ModelReplied": _EVENTS,
    "Notice": _EVENTS,
    "TextChunk": _EVENTS,
    "ToolFinished": _EVENTS,
    "ToolStarted": _EVENTS,
    "TurnEnded": _EVENTS,
    "TurnStarted": _EVENTS,
    "TranscriptError": "kenning.context.transcript",
    "ModelError": "kenning.models.errors",
    "ModelNotConfigured": "kenning.models.errors",
    "SkillError": "kenning.skills.errors",
    "ImportFormatError": "kenning.archive.importers.sources",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value  # looked up once
        return value
    raise AttributeError(f"module 'kenning' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


__all__ = [
    "Agent",
    "ConfigError",
    "Event",
    "Hit",
    "Hits",
    "Home",
    "HomeClosedError",
    "ImportFormatError",
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
