"""Prune: the cheapest stage — old tool results shrink in the view sent to the model.

From ``prune_at`` (~30 % of the usable window) old tool results longer than
``prune_min_chars`` are cut to their head and tail; from ``placeholder_at``
(~50 %) every old result is replaced by one line naming the tool, its target
and how to read the full text again. Which stage applies is decided on the
unpruned size, which only grows until the next compaction, so a result once
pruned stays pruned the same way on every later request (the prefix the
provider caches does not shift under it).

Invariants: only ``tool`` messages change, and only in the returned view —
the archive and the transcript are never touched; everything before the
first user message and the last ``protected_assistant_turns`` assistant
messages (with the results that follow them) are never pruned; a pruned
result keeps its ``tool_call_id``, so tool-call pairing is unchanged.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from kenning.config import ContextConfig
from kenning.context.transcript import Entry
from kenning.models.types import ChatMessage, ToolCall

Stage = Literal["none", "trim", "placeholder"]

# Results shorter than this are left alone even at the placeholder stage: the
# placeholder would not be much shorter than the result itself.
PLACEHOLDER_MIN_CHARS = 300
TARGET_CHARS = 80
# Argument names that usually say what a call was about, most telling first.
_TARGET_KEYS = ("path", "file", "url", "command", "query", "pattern", "name", "session_id", "id")

# How a result's full text can be read again, given its entry.
Locator = Callable[[Entry], str]


@dataclass(frozen=True)
class PruneResult:
    messages: list[ChatMessage]
    stage: Stage
    trimmed: int = 0  # results cut to head + tail
    replaced: int = 0  # results replaced by a placeholder
    changed: tuple[int, ...] = ()  # indexes of entries whose message changed


def stage_for(share: float, config: ContextConfig) -> Stage:
    if share >= config.placeholder_at:
        return "placeholder"
    if share >= config.prune_at:
        return "trim"
    return "none"


def protected_span(entries: Sequence[Entry], assistant_turns: int) -> tuple[int, int]:
    """(first prunable index, first protected index at the end)."""
    start = next((i for i, e in enumerate(entries) if e.message.role == "user"), len(entries))
    if assistant_turns <= 0:
        return start, len(entries)
    answers = [i for i, e in enumerate(entries) if e.message.role == "assistant"]
    if not answers:
        return start, len(entries)
    # Fewer assistant messages than protected turns: all of them are protected.
    return start, answers[max(0, len(answers) - assistant_turns)]


def prune(
    entries: Sequence[Entry],
    share: float,
    config: ContextConfig,
    locate: Locator,
    cache: dict[tuple[int, Stage], str] | None = None,
) -> PruneResult:
    """The view of ``entries`` at ``share`` of the usable window.

    ``cache`` keeps each pruned text by (seq, stage): the same entry prunes to
    the same text every time, so it is computed once per session.
    """
    messages = [e.message for e in entries]
    stage = stage_for(share, config)
    if stage == "none":
        return PruneResult(messages, stage)
    start, end = protected_span(entries, config.protected_assistant_turns)
    calls = _calls_by_id(entries)
    trimmed = replaced = 0
    changed: list[int] = []
    for i in range(start, end):
        entry = entries[i]
        message = entry.message
        if message.role != "tool":
            continue
        size = len(message.content)
        if stage == "placeholder" and size > PLACEHOLDER_MIN_CHARS:
            kind: Stage = "placeholder"
            replaced += 1
        elif size > config.prune_min_chars:
            kind = "trim"
            trimmed += 1
        else:
            continue
        text = cache.get((entry.seq, kind)) if cache is not None else None
        if text is None:
            if kind == "placeholder":
                text = placeholder(message, calls.get(message.tool_call_id or ""), locate(entry))
            else:
                text = head_and_tail(
                    message.content, config.prune_head_chars, config.prune_tail_chars, locate(entry)
                )
            if cache is not None:
                cache[(entry.seq, kind)] = text
        messages[i] = replace(message, content=text)
        changed.append(i)
    return PruneResult(messages, stage, trimmed, replaced, tuple(changed))


def head_and_tail(text: str, head: int, tail: int, where: str) -> str:
    """``text`` cut to its first ``head`` and last ``tail`` characters, on line breaks if near."""
    if len(text) <= head + tail:
        return text
    first = text[:head]
    cut = first.rfind("\n")
    if cut > head * 0.8:
        first = first[:cut]
    last = text[-tail:]
    cut = last.find("\n")
    if 0 <= cut < tail * 0.2:
        last = last[cut + 1 :]
    omitted = len(text) - len(first) - len(last)
    return (
        f"{first}\n[… {omitted:,} characters cut here to save context. Full result: {where}]\n"
        f"{last}"
    )


def placeholder(message: ChatMessage, call: ToolCall | None, where: str) -> str:
    """One line in place of a result: the tool, its target, its size, where the rest is."""
    name = message.name or (call.name if call else "tool")
    target = describe_target(call)
    status = "error" if message.content.startswith("Error:") else "ok"
    return (
        f"[Result pruned to save context: {name}({target}) returned "
        f"{len(message.content):,} characters ({status}). Full result: {where}]"
    )


def describe_target(call: ToolCall | None) -> str:
    """The most telling argument of ``call``, short: ``path="src/app.py"``."""
    if call is None:
        return ""
    try:
        args = json.loads(call.arguments or "{}")
    except json.JSONDecodeError:
        return _short(call.arguments)
    if not isinstance(args, dict) or not args:
        return ""
    for key in (*_TARGET_KEYS, *args):
        value = args.get(key)
        if isinstance(value, str | int | float) and not isinstance(value, bool) and value != "":
            return f"{key}={json.dumps(_short(str(value)), ensure_ascii=False)}"
    return ""


def _short(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= TARGET_CHARS else flat[: TARGET_CHARS - 1] + "…"


def _calls_by_id(entries: Sequence[Entry]) -> dict[str, ToolCall]:
    return {
        call.id: call
        for e in entries
        if e.message.role == "assistant"
        for call in e.message.tool_calls
    }
