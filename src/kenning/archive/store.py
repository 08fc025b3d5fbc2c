"""Sessions and messages: the transcript of everything said and done.

Messages are pure values until stored; the archive assigns ids and each
message's position (``seq``) in its session, atomically, so two processes
appending to the same session never collide. Compaction hides messages from
the live context by flags (``active``/``compacted``) and never deletes them:
they stay searchable.
"""

from __future__ import annotations

import json
import secrets
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from kenning import clock
from kenning.archive.db import ArchiveError, connect, fork_generation

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
    def from_row(cls, row: sqlite3.Row) -> Message:
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
    def from_row(cls, row: sqlite3.Row) -> Session:
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


class Archive:
    """The sessions and messages in one ``state.db``."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._conn: sqlite3.Connection | None = None
        self._generation = -1

    @property
    def conn(self) -> sqlite3.Connection:
        # A fork closes idle connections (see archive.db): reopen after one.
        if self._conn is None or self._generation != fork_generation():
            self._conn = connect(self.path)
            self._generation = fork_generation()
        return self._conn

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
        self._conn = None

    # -- sessions ----------------------------------------------------------

    def start_session(
        self,
        source: Source,
        *,
        session_id: str | None = None,
        parent_id: str | None = None,
        title: str | None = None,
        workspace: str | None = None,
        user_id: str | None = None,
        model: str | None = None,
        started_at: float | None = None,
        import_key: str | None = None,
        meta: dict[str, Any] | None = None,
    ) -> str:
        if source not in SOURCES:
            raise ArchiveError(f"unknown session source {source!r}; use one of {SOURCES}")
        started = started_at if started_at is not None else clock.timestamp()
        # Generated ids carry 24 random bits per second: enough for people,
        # not for an importer creating thousands of sessions a second, so a
        # clash with a generated id draws again (a caller's own id never does).
        for attempt in range(8):
            sid = session_id or new_session_id(started)
            try:
                self._insert_session(
                    sid,
                    source,
                    parent_id,
                    title,
                    workspace,
                    user_id,
                    model,
                    started,
                    import_key,
                    meta,
                )
                return sid
            except sqlite3.IntegrityError:
                if session_id is not None or attempt == 7 or self.session(sid) is None:
                    raise
        raise AssertionError("unreachable")  # pragma: no cover

    def _insert_session(
        self,
        sid: str,
        source: str,
        parent_id: str | None,
        title: str | None,
        workspace: str | None,
        user_id: str | None,
        model: str | None,
        started: float,
        import_key: str | None,
        meta: dict[str, Any] | None,
    ) -> None:
        self.conn.execute(
            """INSERT INTO sessions (id, source, parent_id, title, workspace, user_id, model,
                                     started_at, import_key, meta)
               VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
            (
                sid,
                source,
                parent_id,
                title,
                workspace,
                user_id,
                model,
                started,
                import_key,
                json.dumps(meta, ensure_ascii=False) if meta else None,
            ),
        )

    def end_session(self, session_id: str, reason: str, *, ended_at: float | None = None) -> None:
        self.conn.execute(
            "UPDATE sessions SET ended_at = ?, end_reason = ? WHERE id = ?",
            (ended_at if ended_at is not None else clock.timestamp(), reason, session_id),
        )

    def set_title(self, session_id: str, title: str) -> None:
        self.conn.execute("UPDATE sessions SET title = ? WHERE id = ?", (title, session_id))

    def add_usage(self, session_id: str, input_tokens: int, output_tokens: int) -> None:
        self.conn.execute(
            """UPDATE sessions SET input_tokens = input_tokens + ?,
                                   output_tokens = output_tokens + ? WHERE id = ?""",
            (input_tokens, output_tokens, session_id),
        )

    def session(self, session_id: str) -> Session | None:
        row = self.conn.execute(
            """SELECT s.*, (SELECT count(*) FROM messages m WHERE m.session_id = s.id)
                      AS message_count
               FROM sessions s WHERE s.id = ?""",
            (session_id,),
        ).fetchone()
        return Session.from_row(row) if row else None

    def session_by_import_key(self, key: str) -> str | None:
        row = self.conn.execute("SELECT id FROM sessions WHERE import_key = ?", (key,)).fetchone()
        return str(row[0]) if row else None

    def sessions(
        self, *, limit: int = 20, sources: Sequence[str] | None = None, offset: int = 0
    ) -> list[Session]:
        where, params = "", []
        if sources:
            where = f"WHERE s.source IN ({','.join('?' * len(sources))})"
            params = list(sources)
        rows = self.conn.execute(
            f"""SELECT s.*, (SELECT count(*) FROM messages m WHERE m.session_id = s.id)
                       AS message_count
                FROM sessions s {where}
                ORDER BY s.started_at DESC, s.id DESC LIMIT ? OFFSET ?""",
            (*params, limit, offset),
        ).fetchall()
        return [Session.from_row(r) for r in rows]

    # -- messages ----------------------------------------------------------

    def append(self, session_id: str, message: Message) -> Message:
        """Store ``message`` at the end of the session; returns it with id and seq."""
        created = message.created_at if message.created_at is not None else clock.timestamp()
        # seq is computed inside the INSERT, under SQLite's write lock, so two
        # writers appending to one session can never take the same position.
        cur = self.conn.execute(
            """INSERT INTO messages (session_id, seq, role, speaker, content, tool_calls,
                                     tool_name, tool_call_id, created_at, input_tokens,
                                     output_tokens, meta)
               SELECT ?, COALESCE(MAX(seq), 0) + 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?
               FROM messages WHERE session_id = ?
               RETURNING id, seq""",
            (
                session_id,
                message.role,
                message.speaker,
                message.content,
                json.dumps(message.tool_calls, ensure_ascii=False) if message.tool_calls else None,
                message.tool_name,
                message.tool_call_id,
                created,
                message.input_tokens,
                message.output_tokens,
                json.dumps(message.meta, ensure_ascii=False) if message.meta else None,
                session_id,
            ),
        )
        row = cur.fetchone()
        return Message(
            **{
                **message.__dict__,
                "id": row[0],
                "seq": row[1],
                "session_id": session_id,
                "created_at": created,
            }
        )

    def append_many(self, session_id: str, messages: Iterable[Message]) -> int:
        """Append in one transaction (imports): all of them or none."""
        count = 0
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            for message in messages:
                self.append(session_id, message)
                count += 1
            self.conn.execute("COMMIT")
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        return count

    def messages(
        self,
        session_id: str,
        *,
        start_seq: int = 1,
        limit: int | None = None,
        include_inactive: bool = True,
    ) -> list[Message]:
        active = "" if include_inactive else "AND active = 1"
        rows = self.conn.execute(
            f"""SELECT * FROM messages WHERE session_id = ? AND seq >= ? {active}
                ORDER BY seq LIMIT ?""",
            (session_id, start_seq, -1 if limit is None else limit),
        ).fetchall()
        return [Message.from_row(r) for r in rows]

    def message(self, message_id: int) -> Message | None:
        row = self.conn.execute("SELECT * FROM messages WHERE id = ?", (message_id,)).fetchone()
        return Message.from_row(row) if row else None

    def mark_compacted(self, session_id: str, seqs: Sequence[int]) -> int:
        """Hide messages from the live context; they stay in the archive and in search."""
        if not seqs:
            return 0
        cur = self.conn.execute(
            f"""UPDATE messages SET active = 0, compacted = 1
                WHERE session_id = ? AND seq IN ({",".join("?" * len(seqs))})""",
            (session_id, *seqs),
        )
        return cur.rowcount

    # -- context engine ----------------------------------------------------

    def update_session_meta(self, session_id: str, updates: dict[str, Any]) -> None:
        """Merge ``updates`` into the session's meta (a compaction's new system prompt)."""
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            self._merge_meta(session_id, updates)
            self.conn.execute("COMMIT")
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise

    def message_ids(self, session_id: str, seqs: Sequence[int]) -> dict[int, int]:
        """The archive id of each message at ``seqs`` (the ids ``session_search`` takes)."""
        if not seqs:
            return {}
        rows = self.conn.execute(
            f"""SELECT seq, id FROM messages
                WHERE session_id = ? AND seq IN ({",".join("?" * len(seqs))})""",
            (session_id, *seqs),
        ).fetchall()
        return {int(seq): int(mid) for seq, mid in rows}

    def append_inactive(self, session_id: str, messages: Sequence[Message]) -> list[Message]:
        """Append messages already flagged compacted: kept and searchable, never in context.

        For turns the user never sees (the pre-compaction flush); one transaction,
        so a crash cannot leave them half-visible.
        """
        stored: list[Message] = []
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            for message in messages:
                stored.append(self.append(session_id, message))
            self.mark_compacted(session_id, [m.seq for m in stored if m.seq is not None])
            self.conn.execute("COMMIT")
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        return [Message(**{**m.__dict__, "active": False, "compacted": True}) for m in stored]

    def replace_with_summary(
        self,
        session_id: str,
        summary: Message,
        seqs: Sequence[int],
        meta_updates: dict[str, Any] | None = None,
    ) -> Message:
        """One compaction, atomically: store ``summary``, flag ``seqs`` compacted, update meta.

        Either all of it is in the archive or none of it: a resumed session
        never sees a summary next to the messages it replaced.
        """
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            stored = self.append(session_id, summary)
            ordered = list(seqs)
            for start in range(0, len(ordered), 500):  # SQLite caps bound parameters
                self.mark_compacted(session_id, ordered[start : start + 500])
            if meta_updates:
                self._merge_meta(session_id, meta_updates)
            self.conn.execute("COMMIT")
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        return stored

    def _merge_meta(self, session_id: str, updates: dict[str, Any]) -> None:
        row = self.conn.execute("SELECT meta FROM sessions WHERE id = ?", (session_id,)).fetchone()
        if row is None:
            raise ArchiveError(f"no session {session_id!r} in the archive")
        meta = json.loads(row[0]) if row[0] else {}
        meta.update(updates)
        self.conn.execute(
            "UPDATE sessions SET meta = ? WHERE id = ?",
            (json.dumps(meta, ensure_ascii=False), session_id),
        )
