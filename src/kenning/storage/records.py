"""The archive's values: sessions and messages as stored, whatever the backend.

Pure values; a backend turns its rows into these (``from_row`` takes any
mapping with the column names, so SQLite rows and PostgreSQL records both fit).
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal, Protocol

from kenning import clock


class Row(Protocol):
    """A stored row read by column name (``sqlite3.Row``, a PostgreSQL record)."""

    def __getitem__(self, key: str) -> Any: ...

    def keys(self) -> list[str]: ...


Source = Literal["cli", "run", "mcp", "cron", "subagent", "import", "review"]
Role = Literal["system", "user", "assistant", "tool"]
SOURCES: tuple[str, ...] = ("cli", "run", "mcp", "cron", "subagent", "import", "review")


@dataclass(frozen=True)
class Message:
    """A message as a value; ``id`` and ``seq`` are set once it is stored."""

    role: Role
    content: str
    speaker: str | None = None
    tool_calls: list[dict[str, Any]] | None = None
    tool_name: str | None = None
    tool_call_id: str | None = None
    created_at: float | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    meta: dict[str, Any] | None = None
    id: int | None = None
    session_id: str | None = None
    seq: int | None = None
    active: bool = True
    compacted: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if v is not None}

    @classmethod
    def from_row(cls, row: Row) -> Message:
        return cls(
            role=row["role"],
            content=row["content"],
            speaker=row["speaker"],
            tool_calls=json.loads(row["tool_calls"]) if row["tool_calls"] else None,
            tool_name=row["tool_name"],
            tool_call_id=row["tool_call_id"],
            created_at=row["created_at"],
            input_tokens=row["input_tokens"],
            output_tokens=row["output_tokens"],
            meta=json.loads(row["meta"]) if row["meta"] else None,
            id=row["id"],
            session_id=row["session_id"],
            seq=row["seq"],
            active=bool(row["active"]),
            compacted=bool(row["compacted"]),
        )


@dataclass(frozen=True)
class Session:
    id: str
    source: str
    started_at: float
    parent_id: str | None = None
    title: str | None = None
    workspace: str | None = None
    user_id: str | None = None
    ended_at: float | None = None
    end_reason: str | None = None
    model: str | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    meta: dict[str, Any] = field(default_factory=dict)
    message_count: int = 0

    @classmethod
    def from_row(cls, row: Row) -> Session:
        keys = row.keys()
        return cls(
            id=row["id"],
            source=row["source"],
            started_at=row["started_at"],
            parent_id=row["parent_id"],
            title=row["title"],
            workspace=row["workspace"],
            user_id=row["user_id"],
            ended_at=row["ended_at"],
            end_reason=row["end_reason"],
            model=row["model"],
            input_tokens=row["input_tokens"],
            output_tokens=row["output_tokens"],
            meta=json.loads(row["meta"]) if row["meta"] else {},
            message_count=row["message_count"] if "message_count" in keys else 0,
        )


def new_session_id(now: float | None = None) -> str:
    """Time-sortable and readable: ``20261130-141503-9f2c4a``."""
    stamp = datetime.fromtimestamp(now if now is not None else clock.timestamp(), UTC)
    return f"{stamp:%Y%m%d-%H%M%S}-{secrets.token_hex(3)}"


@dataclass(frozen=True)
class Chunk:
    """A run of lines of a memory file, as indexed."""

    line_start: int  # 1-based, inclusive
    line_end: int
    text: str
