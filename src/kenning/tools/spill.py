"""Spill: oversized tool results go to a file; the context keeps a preview and the path.

Two limits, both in characters (``[agent]`` in config): one result over
``spill_chars`` is spilled; and once the results kept in the context during
one turn would pass ``spill_turn_chars``, the largest remaining results of the
batch are spilled until the total fits. Tools whose output is bounded by
design (``Tool.spill`` False, e.g. ``read_file``) are never spilled, so reading
a spill file back can never spill again; they still count toward the total.

Invariants: a spill file is complete or absent (written to a temp file, then
hard-linked to a name nobody else has: atomic and never overwriting); its
name says which session, tool and call it came from; the preview tells the
model the exact ``read_file`` call that reads the rest. If the file cannot be
written, the model still gets the head and tail and is told the rest is lost.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from kenning.config import AgentConfig
from kenning.tools.base import ToolContext, ToolResult

LONG_LINE = 2_000  # read_file cuts lines longer than this (files.py uses the same number)


@dataclass(frozen=True)
class SpillPolicy:
    max_chars: int = 100_000
    turn_chars: int = 200_000
    preview_chars: int = 1_500

    @classmethod
    def from_config(cls, agent: AgentConfig) -> SpillPolicy:
        return cls(agent.spill_chars, agent.spill_turn_chars, agent.spill_preview_chars)


@dataclass(frozen=True)
class SpillItem:
    call_id: str
    tool: str
    result: ToolResult
    spillable: bool = True


@dataclass(frozen=True)
class Spilled:
    result: ToolResult  # what goes into the context (the preview, or the original)
    path: Path | None = None  # where the full text went, if it was spilled


def apply(items: Sequence[SpillItem], ctx: ToolContext, policy: SpillPolicy) -> list[Spilled]:
    """Spill what the limits require and count the rest toward the turn's total."""
    out = [Spilled(item.result) for item in items]

    def spill(i: int) -> None:
        out[i] = spill_one(items[i], ctx, policy)
        ctx.turn.spilled += 1

    for i, item in enumerate(items):
        if item.spillable and len(item.result.text) > policy.max_chars:
            spill(i)
    total = ctx.turn.result_chars + sum(len(s.result.text) for s in out)
    while total > policy.turn_chars:
        # Largest first: one spill frees the most room and keeps small results whole.
        candidates = [
            i
            for i, item in enumerate(items)
            if item.spillable
            and out[i].path is None
            and len(out[i].result.text) > policy.preview_chars + 600
        ]
        if not candidates:
            break
        largest = max(candidates, key=lambda i: len(out[i].result.text))
        spill(largest)
        total = ctx.turn.result_chars + sum(len(s.result.text) for s in out)
    ctx.turn.result_chars = total
    return out


def spill_one(item: SpillItem, ctx: ToolContext, policy: SpillPolicy) -> Spilled:
    text = _readable(item.result.text)
    head, tail = _preview(text, policy.preview_chars)
    lines = text.count("\n") + (0 if text.endswith("\n") else 1)
    meta = dict(item.result.meta)
    try:
        path = _save(ctx, item.tool, item.call_id, text)
    except OSError as exc:
        note = (
            f"[{item.tool} returned {len(text):,} characters ({lines:,} lines), too many for "
            f"the context, and saving them to a file failed ({exc}). Only the beginning and the "
            "end are shown; narrow the request (a smaller range, a filter) to see the rest.]"
        )
        meta["spill_error"] = str(exc)
        return Spilled(ToolResult(_layout(note, head, tail), item.result.ok, meta))
    quoted = json.dumps(str(path))
    long_lines = max((len(line) for line in text.splitlines()), default=0) > LONG_LINE
    hint = (
        f" Some lines are longer than {LONG_LINE:,} characters and read_file cuts them; "
        f"search_files(pattern=..., path={quoted}) finds text inside them."
        if long_lines
        else ""
    )
    note = (
        f"[{item.tool} returned {len(text):,} characters ({lines:,} lines), too many for the "
        f"context. The full output is saved in {path}. Below are its beginning and end. Read "
        f"more with read_file(path={quoted}, offset=1, limit=200) — offset is a line number "
        f"— or search it with search_files(pattern=..., path={quoted}).{hint}]"
    )
    meta.update(spill_path=str(path), spilled_chars=len(text))
    return Spilled(ToolResult(_layout(note, head, tail), item.result.ok, meta), path)


def _readable(text: str) -> str:
    """JSON on one huge line becomes indented JSON, so read_file can page through it."""
    stripped = text.lstrip()
    if stripped[:1] in ("{", "[") and "\n" not in text.strip():
        try:
            return json.dumps(json.loads(text), ensure_ascii=False, indent=1)
        except ValueError:
            return text
    return text


def _preview(text: str, budget: int) -> tuple[str, str]:
    """About two thirds of the budget from the start, a third from the end, cut at lines."""
    head_size = budget * 2 // 3
    tail_size = budget - head_size
    head = text[:head_size]
    cut = head.rfind("\n")
    if cut > head_size // 2:
        head = head[:cut]
    tail = text[-tail_size:] if tail_size else ""
    cut = tail.find("\n")
    if 0 <= cut < tail_size // 2:
        tail = tail[cut + 1 :]
    return head, tail


def _layout(note: str, head: str, tail: str) -> str:
    return f"{note}\n--- beginning ---\n{head}\n--- … ---\n{tail}\n--- end ---"


_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def _part(raw: str | None, fallback: str) -> str:
    cleaned = _UNSAFE.sub("-", raw or "").strip("-.")[:64]
    return cleaned or fallback


def _save(ctx: ToolContext, tool: str, call_id: str, text: str) -> Path:
    folder = ctx.home.layout.spill_dir / _part(ctx.session_id, "no-session")
    folder.mkdir(parents=True, exist_ok=True)
    stem = f"{_part(tool, 'tool')}-{_part(call_id, 'call')}"
    fd, tmp = tempfile.mkstemp(prefix=".spill-", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        for n in range(1, 1000):
            target = folder / (f"{stem}.txt" if n == 1 else f"{stem}-{n}.txt")
            try:
                os.link(tmp, target)  # fails if the name is taken: never overwrites
            except FileExistsError:
                continue
            return target
        raise OSError(f"no free file name for {stem} in {folder}")
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
