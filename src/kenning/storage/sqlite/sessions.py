"""Sessions and messages in ``state.db``: the SQL behind ``storage.base.Sessions``.

``seq`` is computed inside the INSERT, under SQLite's write lock, so two
writers appending to one session can never take the same position.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from kenning import clock
from kenning.storage.base import StorageError
from kenning.storage.query import SearchFilters
from kenning.storage.records import Message, Session
from kenning.storage.sqlite import scope as scope_sql
from kenning.storage.sqlite.connection import Conn, translate_errors

_WITH_COUNT = """SELECT s.*, (SELECT count(*) FROM messages m WHERE m.session_id = s.id)
                        AS message_count FROM sessions s"""


def _json(value: Any) -> str | None:
    return json.dumps(value, ensure_ascii=False) if value else None


@translate_errors
class SqliteSessions:
    def __init__(self, conn: Callable[[], Conn]) -> None:
        self._conn = conn

    # -- sessions ----------------------------------------------------------

    def insert(
        self,
        session_id: str,
        source: str,
        *,
        started_at: float,
        parent_id: str | None = None,
        title: str | None = None,
        workspace: str | None = None,
        user_id: str | None = None,
        model: str | None = None,
        import_key: str | None = None,
        meta: dict[str, Any] | None = None,
    ) -> None:
        self._conn().execute(
            """INSERT INTO sessions (id, source, parent_id, title, workspace, user_id, model,
                                     started_at, import_key, meta)
               VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
            (
                session_id,
                source,
                parent_id,
                title,
                workspace,
                user_id,
                model,
                started_at,
                import_key,
                _json(meta),
            ),
        )

    def end(self, session_id: str, reason: str, ended_at: float) -> None:
        self._conn().execute(
            "UPDATE sessions SET ended_at = ?, end_reason = ? WHERE id = ?",
            (ended_at, reason, session_id),
        )

    def set_title(self, session_id: str, title: str) -> None:
        self._conn().execute("UPDATE sessions SET title = ? WHERE id = ?", (title, session_id))

    def set_started_at(self, session_id: str, started_at: float) -> None:
        self._conn().execute(
            "UPDATE sessions SET started_at = ? WHERE id = ?", (started_at, session_id)
        )

    def add_usage(self, session_id: str, input_tokens: int, output_tokens: int) -> None:
        self._conn().execute(
            """UPDATE sessions SET input_tokens = input_tokens + ?,
                                   output_tokens = output_tokens + ? WHERE id = ?""",
            (input_tokens, output_tokens, session_id),
        )

    def get(self, session_id: str) -> Session | None:
        row = self._conn().execute(f"{_WITH_COUNT} WHERE s.id = ?", (session_id,)).fetchone()
        return Session.from_row(row) if row else None

    def import_key(self, session_id: str) -> str | None:
        row = (
            self._conn()
            .execute("SELECT import_key FROM sessions WHERE id = ?", (session_id,))
            .fetchone()
        )
        return None if row is None or row[0] is None else str(row[0])

    def by_import_key(self, key: str) -> str | None:
        row = (
            self._conn().execute("SELECT id FROM sessions WHERE import_key = ?", (key,)).fetchone()
        )
        return str(row[0]) if row else None

    def by_host_id(self, host_id: str) -> list[str]:
        rows = self._conn().execute(
            "SELECT id FROM sessions WHERE json_extract(meta, '$.session_id') = ? "
            "OR json_extract(meta, '$.conversation_id') = ? ORDER BY started_at, id",
            (host_id, host_id),
        )
        return [str(r[0]) for r in rows]

    def parent(self, session_id: str) -> str | None:
        row = (
            self._conn()
            .execute("SELECT parent_id FROM sessions WHERE id = ?", (session_id,))
            .fetchone()
        )
        return None if row is None or row[0] is None else str(row[0])

    def children(self, session_id: str) -> list[Session]:
        rows = (
            self._conn()
            .execute(
                f"{_WITH_COUNT} WHERE s.parent_id = ? ORDER BY s.started_at, s.id", (session_id,)
            )
            .fetchall()
        )
        return [Session.from_row(r) for r in rows]

    def recent(
        self, *, limit: int = 20, sources: Sequence[str] | None = None, offset: int = 0
    ) -> list[Session]:
        where, params = "", []
        if sources:
            where = f"WHERE s.source IN ({','.join('?' * len(sources))})"
            params = list(sources)
        rows = (
            self._conn()
            .execute(
                f"""{_WITH_COUNT} {where}
                ORDER BY s.started_at DESC, s.id DESC LIMIT ? OFFSET ?""",
                (*params, limit, offset),
            )
            .fetchall()
        )
        return [Session.from_row(r) for r in rows]

    def merge_meta(self, session_id: str, updates: dict[str, Any]) -> None:
        conn = self._conn()
        row = conn.execute("SELECT meta FROM sessions WHERE id = ?", (session_id,)).fetchone()
        if row is None:
            raise StorageError(f"no session {session_id!r} in the archive")
        meta = json.loads(row[0]) if row[0] else {}
        meta.update(updates)
        conn.execute(
            "UPDATE sessions SET meta = ? WHERE id = ?",
            (json.dumps(meta, ensure_ascii=False), session_id),
        )

    # -- messages ----------------------------------------------------------

    def append(self, session_id: str, message: Message) -> Message:
        created = message.created_at if message.created_at is not None else clock.timestamp()
        row = (
            self._conn()
            .execute(
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
                    _json(message.tool_calls),
                    message.tool_name,
                    message.tool_call_id,
                    created,
                    message.input_tokens,
                    message.output_tokens,
                    _json(message.meta),
                    session_id,
                ),
            )
            .fetchone()
        )
        return Message(
            **{
                **message.__dict__,
                "id": row[0],
                "seq": row[1],
                "session_id": session_id,
                "created_at": created,
            }
        )

    def append_many(self, session_id: str, messages: Sequence[Message]) -> list[Message]:
        return [self.append(session_id, m) for m in messages]

    def messages(
        self,
        session_id: str,
        *,
        start_seq: int = 1,
        limit: int | None = None,
        include_inactive: bool = True,
    ) -> list[Message]:
        active = "" if include_inactive else "AND active = 1"
        rows = (
            self._conn()
            .execute(
                f"""SELECT * FROM messages WHERE session_id = ? AND seq >= ? {active}
                ORDER BY seq LIMIT ?""",
                (session_id, start_seq, -1 if limit is None else limit),
            )
            .fetchall()
        )
        return [Message.from_row(r) for r in rows]

    def message(self, message_id: int) -> Message | None:
        row = self._conn().execute("SELECT * FROM messages WHERE id = ?", (message_id,)).fetchone()
        return Message.from_row(row) if row else None

    def rewrite(self, message_id: int, message: Message) -> None:
        self._conn().execute(
            """UPDATE messages SET role = ?, speaker = ?, content = ?, tool_calls = ?,
                                   tool_name = ?, tool_call_id = ?, meta = ? WHERE id = ?""",
            (
                message.role,
                message.speaker,
                message.content,
                _json(message.tool_calls),
                message.tool_name,
                message.tool_call_id,
                _json(message.meta),
                message_id,
            ),
        )

    def mark_compacted(self, session_id: str, seqs: Sequence[int]) -> int:
        if not seqs:
            return 0
        cur = self._conn().execute(
            f"""UPDATE messages SET active = 0, compacted = 1
                WHERE session_id = ? AND seq IN ({",".join("?" * len(seqs))})""",
            (session_id, *seqs),
        )
        return int(cur.rowcount)

    def message_ids(self, session_id: str, seqs: Sequence[int]) -> dict[int, int]:
        if not seqs:
            return {}
        rows = (
            self._conn()
            .execute(
                f"""SELECT seq, id FROM messages
                WHERE session_id = ? AND seq IN ({",".join("?" * len(seqs))})""",
                (session_id, *seqs),
            )
            .fetchall()
        )
        return {int(seq): int(mid) for seq, mid in rows}

    def all_messages(self) -> list[Message]:
        """Every message, by id (benchmarks building their baselines)."""
        rows = self._conn().execute("SELECT * FROM messages ORDER BY id")
        return [Message.from_row(r) for r in rows]

    def count_messages(self, *, include_system: bool = True) -> int:
        where = "" if include_system else " WHERE role != 'system'"
        return int(self._conn().execute(f"SELECT count(*) FROM messages{where}").fetchone()[0])

    def ids_in(self, scope: SearchFilters) -> list[int]:
        """Every message id inside ``scope`` (system messages included)."""
        where, params = scope_sql.messages(scope)
        return [
            int(r[0])
            for r in self._conn().execute(
                "SELECT m.id FROM messages m JOIN sessions s ON s.id = m.session_id "
                f"WHERE 1 {where}",
                params,
            )
        ]

    def by_meta_key(self, key: str) -> list[tuple[str, int, str]]:
        """(the value of ``meta[key]``, message id, session id) for every message
        (benchmarks map their dataset's ids to archive ids with it)."""
        rows = self._conn().execute(
            "SELECT json_extract(meta, ?), id, session_id FROM messages", (f"$.{key}",)
        )
        return [(str(r[0]), int(r[1]), str(r[2])) for r in rows]

    def newest_message_at(self) -> float | None:
        row = self._conn().execute("SELECT max(created_at) FROM messages").fetchone()
        return None if row[0] is None else float(row[0])

    def journal_flushes(self, since: float, until: float) -> list[tuple[str | None, str]]:
        """(tool calls JSON, session source) of assistant messages that called
        ``journal_append`` between ``since`` and ``until``."""
        rows = (
            self._conn()
            .execute(
                "SELECT m.tool_calls, s.source FROM messages m "
                "JOIN sessions s ON s.id = m.session_id WHERE m.role = 'assistant' "
                "AND m.tool_calls LIKE '%journal_append%' "
                "AND m.created_at BETWEEN ? AND ?",
                (since, until),
            )
            .fetchall()
        )
        return [(r[0], str(r[1])) for r in rows]

    # -- what ranking and dreaming read ----------------------------------------

    def facts(
        self, ids: list[Any], scope: SearchFilters, *, pairs: bool = False
    ) -> list[tuple[Any, ...]]:
        """(id, session, created_at, source, seq, speaker) of the non-system messages among
        ``ids`` inside ``scope`` (``pairs``: ``ids`` are [session, seq] lists)."""
        where, params = scope_sql.messages(scope)
        sql = f"""
            SELECT m.id, m.session_id, m.created_at, s.source, m.seq, m.speaker
            FROM messages m JOIN sessions s ON s.id = m.session_id
            WHERE m.id IN ({_pick(pairs)}) AND m.role != 'system' {where}"""
        return list(self._conn().execute(sql, (json.dumps(ids), *params)).fetchall())

    def facts_at(self, pairs: list[list[Any]]) -> list[tuple[Any, ...]]:
        """(id, session, created_at, seq, speaker) of the non-system messages at these
        [session, seq] positions (unscoped: no sessions join)."""
        sql = f"""SELECT m.id, m.session_id, m.created_at, m.seq, m.speaker FROM messages m
                  WHERE m.id IN ({_pick(True)}) AND m.role != 'system'"""
        return list(self._conn().execute(sql, (json.dumps(pairs),)).fetchall())

    def facts_after(self, last_id: int) -> list[tuple[Any, ...]]:
        """(id, session, seq, created_at, is system, speaker) of every message after
        ``last_id``, by id."""
        return list(
            self._conn()
            .execute(
                "SELECT id, session_id, seq, created_at, role = 'system', speaker FROM messages "
                "WHERE id > ? ORDER BY id",
                (last_id,),
            )
            .fetchall()
        )

    def sources(self, session_ids: list[str]) -> list[tuple[str, str]]:
        """(session id, source) of each known session."""
        return list(
            self._conn()
            .execute(
                "SELECT id, source FROM sessions WHERE id IN (SELECT value FROM json_each(?))",
                (json.dumps(session_ids),),
            )
            .fetchall()
        )

    def with_source(self, ids: list[int]) -> list[tuple[Message, str]]:
        """Each known message among ``ids`` with its session's source."""
        rows = self._conn().execute(
            "SELECT m.*, s.source AS session_source "
            "FROM messages m JOIN sessions s ON s.id = m.session_id "
            "WHERE m.id IN (SELECT value FROM json_each(?))",
            (json.dumps(ids),),
        )
        return [(Message.from_row(r), str(r["session_source"])) for r in rows]

    def said_since(self, sources: list[str], since: float) -> list[Message]:
        """The user's and assistant's messages in sessions of ``sources`` since ``since``."""
        placeholders = ",".join("?" * len(sources))
        rows = self._conn().execute(
            "SELECT m.* FROM messages m "
            f"JOIN sessions s ON s.id = m.session_id WHERE s.source IN ({placeholders}) "
            "AND m.role IN ('user', 'assistant') AND m.created_at >= ?",
            (*sources, since),
        )
        return [Message.from_row(r) for r in rows]

    def tool_calls_since(
        self, names: list[str], excluding: list[str], since: float
    ) -> list[tuple[str | None, float]]:
        """(tool calls JSON, created_at) of assistant messages mentioning any of
        ``names``, in sessions whose source is not in ``excluding``, since ``since``."""
        marks = " OR ".join("m.tool_calls LIKE ?" for _ in names)
        placeholders = ",".join("?" * len(excluding))
        rows = (
            self._conn()
            .execute(
                "SELECT m.tool_calls, m.created_at FROM messages m JOIN sessions s "
                f"ON s.id = m.session_id WHERE m.role = 'assistant' AND ({marks}) "
                f"AND s.source NOT IN ({placeholders}) AND m.created_at >= ?",
                (*(f"%{t}%" for t in names), *excluding, since),
            )
            .fetchall()
        )
        return [(r[0], float(r[1])) for r in rows]


def _pick(pairs: bool) -> str:
    return (
        "SELECT x.id FROM json_each(?) j JOIN messages x "
        "ON x.session_id = j.value ->> 0 AND x.seq = j.value ->> 1"
        if pairs
        else "SELECT value FROM json_each(?)"
    )
