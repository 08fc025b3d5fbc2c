"""What a running turn reports, as values: rendered by `kenning chat`, streamed
as JSON lines by `kenning run --json`, and passed to lifecycle hooks.

Each event is a frozen dataclass with a ``type`` tag, so ``to_dict()`` output
is self-describing and stable for scripts.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from typing import Any, Literal

from kenning.models.types import ToolCall, Usage

EndReason = Literal["final", "max_iterations", "timeout", "interrupted", "error"]


@dataclass(frozen=True)
class TurnStarted:
    session_id: str
    text: str
    type: str = "turn_started"


@dataclass(frozen=True)
class TextChunk:
    """Streamed answer text, as it arrives."""

    text: str
    type: str = "text"


@dataclass(frozen=True)
class ModelReplied:
    """One complete model response (text and/or tool calls) with its usage."""

    text: str
    tool_calls: tuple[ToolCall, ...]
    usage: Usage
    iteration: int
    type: str = "model_replied"


@dataclass(frozen=True)
class ToolStarted:
    call: ToolCall
    type: str = "tool_started"


@dataclass(frozen=True)
class ToolFinished:
    call: ToolCall
    ok: bool
    result: str  # as the model sees it (after spill)
    seconds: float
    type: str = "tool_finished"


@dataclass(frozen=True)
class Notice:
    """Something the user should know that is not part of the answer."""

    text: str
    level: Literal["info", "warning", "error"] = "info"
    type: str = "notice"


@dataclass(frozen=True)
class TurnEnded:
    reason: EndReason
    answer: str
    iterations: int
    usage: Usage
    error: str | None = None
    type: str = "turn_ended"

    @property
    def ok(self) -> bool:
        return self.reason == "final"


Event = TurnStarted | TextChunk | ModelReplied | ToolStarted | ToolFinished | Notice | TurnEnded


def to_dict(event: Event) -> dict[str, Any]:
    """A JSON-ready dict; tool calls and usage become plain objects."""
    return dataclasses.asdict(event)


def describe_call(call: ToolCall, width: int = 80) -> str:
    """``read_file path=notes.txt`` — a tool call on one short line."""
    try:
        args = json.loads(call.arguments or "{}")
    except json.JSONDecodeError:
        return f"{call.name} (malformed arguments)"
    if not isinstance(args, dict):
        return call.name
    parts = [f"{k}={v!s}".replace("\n", "⏎") for k, v in args.items()]
    line = f"{call.name} {' '.join(parts)}".strip()
    return line if len(line) <= width else line[: width - 1] + "…"
