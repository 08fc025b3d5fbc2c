"""What the context engine reports: one compaction's outcome, and the budget in numbers.

Values only, so the chat status line, ``kenning sessions compact --json``,
notices and the benchmark read the same fields.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from kenning.context.prune import Stage


@dataclass(frozen=True)
class CompactionReport:
    """What one compaction did (or why it did not), for notices, the CLI and the bench."""

    session_id: str
    reason: str
    compacted: bool
    messages_compacted: int = 0
    first_seq: int | None = None
    last_seq: int | None = None
    tokens_before: int = 0
    tokens_after: int = 0
    guard: str | None = None  # accepted | retried | patched | fallback
    caught: tuple[str, ...] = ()  # what the guard found missing in the first draft
    flushed: bool = False  # the flush ran in this cycle (now or before)
    flush_saved: int = 0  # journal entries the cycle's flush wrote
    summary_requests: int = 0
    seconds: float = 0.0
    model_seconds: float = 0.0
    error: str | None = None
    retry_in: float | None = None
    note: str = ""

    @property
    def engine_seconds(self) -> float:
        """Time spent in the engine itself, model requests excluded."""
        return max(0.0, self.seconds - self.model_seconds)

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "engine_seconds": self.engine_seconds}

    def describe(self) -> str:
        if self.compacted:
            guard = {
                "accepted": "",
                "retried": " (the guard caught a gap; the retry fixed it)",
                "patched": " (the guard added what the summary missed, verbatim)",
                "fallback": " (deterministic summary: the model's drafts failed the guard)",
            }.get(self.guard or "", "")
            saved = f"; {self.flush_saved} journal note(s) saved first" if self.flush_saved else ""
            return (
                f"Context compacted: {self.messages_compacted} messages "
                f"(#{self.first_seq}–#{self.last_seq}) became a summary{guard}; "
                f"{self.tokens_before:,} → {self.tokens_after:,} tokens{saved}. "
                "The originals stay searchable (session_search)."
            )
        if self.error:
            wait = (
                f" Automatic compaction retries in {self.retry_in:.0f} s." if self.retry_in else ""
            )
            return f"Compaction failed ({self.error}); nothing was dropped.{wait}"
        return f"Nothing compacted: {self.note}"


@dataclass(frozen=True)
class ContextStatus:
    """The numbers a status line shows."""

    tokens: int
    usable: int
    window: int
    share: float
    stage: Stage
    compactions: int
    cooldown_s: float
