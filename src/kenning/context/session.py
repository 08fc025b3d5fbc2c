"""What the context engine needs of a session, and nothing more.

The engine works on any object with these members; the agent loop's
``AgentSession`` is one. Keeping the interface here, next to the transcript
it is mostly about, means the engine never imports the loop that calls it:
the loop depends on the context package, not the other way round.

What the engine writes is limited to the transcript (a compaction replaces
entries and the system prompt, ``Transcript.compacted``), ``context_tokens``
(the size after a compaction) and, once, ``use_context`` (attaching itself).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from kenning.context.transcript import Transcript
from kenning.models.types import Model, ModelSettings, Usage
from kenning.tools.registry import ToolRegistry

if TYPE_CHECKING:
    from kenning.context.engine import ContextEngine
    from kenning.home import Home
    from kenning.providers.base import MemoryProviders


class RequestSettings(Protocol):
    """How the session's requests go out: its toolsets and model settings."""

    @property
    def toolsets(self) -> tuple[str, ...] | None: ...

    @property
    def model_settings(self) -> ModelSettings: ...


class ContextSession(Protocol):
    """A session as the context engine sees it (flush and compaction included)."""

    # Tokens the last request occupied, from the API's usage; the engine sets
    # it to its own measure after a compaction.
    context_tokens: int
    # The external memory provider, told what a compaction is about to drop (or None).
    memory_providers: MemoryProviders | None

    @property
    def session_id(self) -> str: ...

    @property
    def home(self) -> Home: ...

    @property
    def cwd(self) -> Path: ...

    @property
    def model(self) -> Model: ...

    @property
    def tools(self) -> ToolRegistry: ...

    @property
    def settings(self) -> RequestSettings: ...

    @property
    def transcript(self) -> Transcript: ...

    @property
    def usage(self) -> Usage: ...

    @property
    def context_engine(self) -> ContextEngine | None: ...

    def use_context(self, engine: ContextEngine) -> None:
        """Send what ``engine.prepare`` returns and recover from overflows through it."""
        ...
