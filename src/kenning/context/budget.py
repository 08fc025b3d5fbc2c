"""The budget: how much of the model's window a session may fill, and telling the agent.

Usable window = the model's context window minus a reserve for the answer
([context] reserve_tokens, else [model] max_output_tokens, never more than a
quarter of the window). Every stage threshold is a share of the usable window.

The agent sees its budget: when usage first passes 70 %, 85 % and 90 % in a
compaction cycle, a short status note is attached to the newest message of
the view (a user message or a tool result), so the model can plan — finish
the important step, save what must survive. Invariants: the note lives in
the view only — never in the archive, never in the frozen system prompt (which
would break the provider's prefix cache) — and once attached it stays on that
message for the rest of the cycle, so the prefix sent on later requests does
not change under it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from kenning.config import ContextConfig
from kenning.models.types import ChatMessage

NOTE_PREFIX = "[kenning · context budget]"


@dataclass(frozen=True)
class Budget:
    window: int
    reserve: int

    @property
    def usable(self) -> int:
        return max(1, self.window - self.reserve)

    def share(self, tokens: int) -> float:
        return tokens / self.usable


def budget_for(window: int, config: ContextConfig, max_output_tokens: int) -> Budget:
    """The budget of a model with ``window`` tokens under ``config``."""
    reserve = config.reserve_tokens or max_output_tokens
    return Budget(window=window, reserve=max(0, min(reserve, window // 4)))


def warning_levels(config: ContextConfig) -> tuple[float, ...]:
    return tuple(sorted({config.warn_at, config.warn_high_at, config.warn_critical_at}))


def level_passed(share: float, config: ContextConfig) -> float:
    """The highest warning level ``share`` has reached, or 0.0."""
    passed = [level for level in warning_levels(config) if share >= level]
    return passed[-1] if passed else 0.0


def status_note(level: float, tokens: int, budget: Budget, config: ContextConfig) -> str:
    """The note for a newly passed ``level``: the numbers, then what to do about them."""
    share = budget.share(tokens)
    head = (
        f"{NOTE_PREFIX} {share:.0%} of the usable context window is in use "
        f"({tokens:,} of {budget.usable:,} tokens)."
    )
    levels = warning_levels(config)
    if level >= levels[-1]:
        advice = (
            "The window is nearly full: finish the current step with short outputs (read files "
            "by line range, search before reading) and save anything that must survive to the "
            "journal or memory now."
        )
    elif len(levels) > 1 and level >= levels[-2]:
        advice = (
            f"Older messages are summarised at {config.compact_at:.0%}: if something must "
            "survive verbatim (a decision, a user rule, an exact id or path), write it to "
            "memory or the journal now."
        )
    else:
        advice = (
            "Plan for it: finish the important step first, keep tool outputs small, and note "
            "decisions, user rules and exact identifiers that must outlast this conversation."
        )
    return f"{head} {advice}"


def attach_note(message: ChatMessage, note: str) -> ChatMessage:
    """``message`` with ``note`` after its content (user and tool messages only)."""
    if message.role not in ("user", "tool"):
        return message
    text = f"{message.content}\n\n{note}" if message.content else note
    return replace(message, content=text)
