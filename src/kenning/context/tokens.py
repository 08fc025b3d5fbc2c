"""Token counts for the context engine: messages, tool schemas, calibration.

Text is counted by :func:`kenning.tokens.estimate_tokens` (the one estimator
Kenning has; its docstring says how it was checked). The provider's usage is
the truth, and the engine prefers it: an assistant message the model produced
is counted by its reported output tokens, and the estimate of everything else
is scaled by how far the last request's reported prompt size was from our
estimate of it (``Calibration``). The estimate fills the gaps — messages not
yet sent, a new session, a provider that reports no usage.

Invariant: a message costs its content, its tool calls and a small fixed
overhead for the wire format's framing.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from kenning.models.types import ChatMessage, ToolSpec
from kenning.tokens import estimate_tokens

__all__ = [
    "MESSAGE_OVERHEAD",
    "Calibration",
    "EstimatingCounter",
    "TokenCounter",
    "entry_tokens",
    "estimate_tokens",
    "message_tokens",
    "tools_tokens",
]

# Role markers and separators each wire format adds around a message.
MESSAGE_OVERHEAD = 4


class TokenCounter(Protocol):
    """Counts text; the engine adds message framing and API usage around it."""

    def count(self, text: str) -> int: ...


@dataclass(frozen=True)
class EstimatingCounter:
    """The default counter: :func:`estimate_tokens`."""

    def count(self, text: str) -> int:
        return estimate_tokens(text)


def message_tokens(message: ChatMessage, counter: TokenCounter) -> int:
    """Content, tool calls (name and arguments) and framing of one message."""
    total = MESSAGE_OVERHEAD + counter.count(message.content)
    for call in message.tool_calls:
        total += MESSAGE_OVERHEAD + counter.count(call.name) + counter.count(call.arguments)
    if message.name:
        total += counter.count(message.name)
    return total


def entry_tokens(
    message: ChatMessage, reported: int | None, counter: TokenCounter, calibration: float
) -> int:
    """One stored message: the model's own output count when it is plausible.

    Reasoning models report output tokens for thinking that is never sent
    back, so a reported count far above the estimate is not used for the
    message's size in the context.
    """
    estimate = message_tokens(message, counter)
    scaled = max(1, round(estimate * calibration))
    if reported is not None and message.role == "assistant" and 0 < reported <= 2 * scaled + 16:
        return reported + MESSAGE_OVERHEAD
    return scaled


def tools_tokens(specs: Sequence[ToolSpec], counter: TokenCounter) -> int:
    """What the tool schemas cost in the prompt (sent with every request)."""
    if not specs:
        return 0
    payload = [
        {"name": s.name, "description": s.description, "parameters": s.parameters} for s in specs
    ]
    return counter.count(json.dumps(payload, ensure_ascii=False))


@dataclass
class Calibration:
    """Scales estimates by the provider's reported prompt size (clamped, smoothed).

    ``observe(estimated, reported)`` after each request: the ratio of what the
    provider counted to what we estimated for the same prompt. Small prompts
    are ignored (framing dominates them); the factor moves halfway toward each
    new observation so one odd request cannot swing it.
    """

    factor: float = 1.0
    low: float = 0.5
    high: float = 2.5
    min_tokens: int = 256

    def observe(self, estimated: int, reported: int) -> None:
        if estimated < self.min_tokens or reported <= 0:
            return
        ratio = min(self.high, max(self.low, reported / estimated))
        self.factor = min(self.high, max(self.low, (self.factor + ratio) / 2))

    def at_least(self, factor: float) -> None:
        """After a provider said the prompt did not fit: our estimate was too low."""
        self.factor = min(self.high, max(self.factor, factor))
