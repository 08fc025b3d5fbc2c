"""The frozen hot-memory block that goes into a session's system prompt.

A snapshot is taken once, at session start, and never changes afterwards:
writes during the session land on disk (and show in tool results) but the
prompt prefix stays byte-identical, which keeps provider prefix caches warm
and the model's picture of its own memory stable. A new snapshot is taken by
the next session, or after a compaction.

Entries that arrived by hand-editing and match a threat pattern are shown
neutralised here, while the live file keeps them visible and removable. A file
that cannot be used (a link, a directory, oversized, not entries) becomes a
short notice in its place: a session always starts, and never with its bytes.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from kenning import clock
from kenning.memory.entries import ENTRY_SEPARATOR
from kenning.memory.store import MemoryFileError, MemoryState, MemoryStore, Target
from kenning.safety import threats

_TITLES = {
    Target.MEMORY: "MEMORY (your notes: environment facts, conventions, tool quirks)",
    Target.USER: "USER PROFILE (who the user is: preferences, style, expectations)",
}


@dataclass(frozen=True)
class MemoryBlock:
    state: MemoryState
    error: str | None = None  # completes "<filename> …" when the file could not be used

    def render(self) -> str:
        target = self.state.target
        if self.error is not None:
            return (
                f"{_TITLES[target]} [unreadable]\n"
                f"{target.filename} could not be read: it {self.error}. Nothing from it is "
                "shown here. Tell the user it needs fixing (`kenning memory show` says how); "
                "do not write to it until then."
            )
        header = f"{_TITLES[target]} [{self.state.usage_line()}]"
        if self.state.used > self.state.budget:
            header += " ⚠ OVER BUDGET — consolidate with the memory tool"
        if not self.state.entries:
            return f"{header}\n(empty)"
        body = ENTRY_SEPARATOR.join(threats.neutralise(e, "memory") for e in self.state.entries)
        return f"{header}\n{body}"


@dataclass(frozen=True)
class MemorySnapshot:
    memory: MemoryBlock
    user: MemoryBlock
    taken_at: datetime

    @classmethod
    def capture(cls, store: MemoryStore) -> MemorySnapshot:
        return cls(_block(store, Target.MEMORY), _block(store, Target.USER), clock.now())

    def render(self) -> str:
        """The exact text a session's system prompt gets; stable for the session."""
        return f"{self.memory.render()}\n\n{self.user.render()}\n"


def _block(store: MemoryStore, target: Target) -> MemoryBlock:
    try:
        return MemoryBlock(store.read(target))
    except MemoryFileError as exc:
        return MemoryBlock(MemoryState(target, (), store.budget(target)), error=exc.model_detail)
