"""Sessions and messages on PostgreSQL: the SQL behind ``storage.base.Sessions``.

``seq`` is computed inside the INSERT while the session's advisory lock is
held, so two writers appending to one session never take the same position.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from kenning import clock
from kenning.storage.base import StorageError
from kenning.storage.postgres import scope as scope_sql
from kenning.storage.postgres.connection import Conn, translate_errors, txn
from kenning.storage.query import SearchFilters
from kenning.storage.records import Message, Session

_WITH_COUNT = """SELECT s.*, (SELECT count(*) FROM messages m WHERE m.session_id = s.id)
                        AS message_count FROM sessions s"""


def _json(value: Any) -> str | None:
    return json.dumps(value, ensure_ascii=False) if value else None


def _pairs(pairs: list[list[Any]]) -> tuple[list[str], list[int]]:
    return [str(p[0]) for p in pairs], [int(p[1]) for p in pairs]


_AT_PAIRS = "(m.session_id, m.seq) IN (SELECT * FROM unnest(%s::text[], %s::int[]))"


@translate_errors
class PostgresSessions:
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
               VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)""",
            (session_id, source, parent_id, title, workspace, user_id, model, started_at,
             import_key, _json(meta)),
        )  # fmt: skip

    def end(self, session_id: str, reason: str, ended_at: float) -> None:
        self._conn().execute(
            "UPDATE sessions SET ended_at = %s, end_reason = %s WHERE id = %s",
            (ended_at, reason, session_id),
        )

    def set_title(self, session_id: str, title: str) -> None:
        self._conn().execute("UPDATE sessions SET title = %s WHERE id = %s", (title, session_id))

    def set_started_at(self, session_id: str, started_at: float) -> None:
        self._conn().execute(
            "UPDATE sessions SET started_at = %s WHERE id = %s", (started_at, session_id)
        )

    def add_usage(self, session_id: str, input_tokens: int, output_tokens: int) -> None:
        self._conn().execute(
            """UPDATE sessions SET input_tokens = input_tokens + %s,
                                   output_tokens = output_tokens + %s WHERE id = %s""",
            (input_tokens, output_tokens, session_id),
        )

    def get(self, session_id: str) -> Session | None:
        row = self._conn().execute(f"{_WITH_COUNT} WHERE s.id = %s", (session_id,)).fetchone()
        return Session.from_row(row) if row else None

    def _one(self, sql: str, value: str) -> str | None:
        row = self._conn().execute(sql, (value,)).fetchone()
        return None if row is None or row[0] is None else str(row[0])

    def import_key(self, session_id: str) -> str | None:
        return self._one("SELECT import_key FROM sessions WHERE id = %s", session_id)

    def by_import_key(self, key: str) -> str | None:
        return self._one("SELECT id FROM sessions WHERE import_key = %s", key)

    def by_host_id(self, host_id: str) -> list[str]:
        rows = self._conn().execute(
            "SELECT id FROM sessions WHERE meta::jsonb ->> 'session_id' = %s "
            "OR meta::jsonb ->> 'conversation_id' = %s ORDER BY started_at, id",
            (host_id, host_id),
        )
        return [str(r[0]) for r in rows]

    def parent(self, session_id: str) -> str | None:
        return self._one("SELECT parent_id FROM sessions WHERE id = %s", session_id)

    def children(self, session_id: str) -> list[Session]:
        rows = self._conn().execute(
            f"{_WITH_COUNT} WHERE s.parent_id = %s ORDER BY s.started_at, s.id", (session_id,)
        )
        return [Session.from_row(r) for r in rows]

    def recent(
        self, *, limit: int = 20, sources: Sequence[str] | None = None, offset: int = 0
    ) -> list[Session]:
        where, params = "", []
        if sources:
            where, params = "WHERE s.source = ANY(%s)", [list(sources)]
        rows = self._conn().execute(
            f"""{_WITH_COUNT} {where}
                ORDER BY s.started_at DESC, s.id DESC LIMIT %s OFFSET %s""",
            (*params, limit, offset),
        )
        return [Session.from_row(r) for r in rows]

    def merge_meta(self, session_id: str, updates: dict[str, Any]) -> None:
        conn = self._conn()
        with txn(conn):
            row = conn.execute(
                "SELECT meta FROM sessions WHERE id = %s FOR UPDATE", (session_id,)
            ).fetchone()
            if row is None:
                raise StorageError(f"no session {session_id!r} in the archive")
            meta = json.loads(row[0]) if row[0] else {}
            meta.update(updates)
            conn.execute(
                "UPDATE sessions SET meta = %s WHERE id = %s",
                (json.dumps(meta, ensure_ascii=False), session_id),
            )

    # -- messages ----------------------------------------------------------

    def append(self, session_id: str, message: Message) -> Message:
        created = message.created_at if message.created_at is not None else clock.timestamp()
        conn = self._conn()
        with txn(conn):
            conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (f"seq:{session_id}",))
            row = conn.execute(
                """INSERT INTO messages (session_id, seq, role, speaker, content, tool_calls,
                                         tool_name, tool_call_id, created_at, input_tokens,
                                         output_tokens, meta)
                   SELECT %s, COALESCE(MAX(seq), 0) + 1, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s
                   FROM messages WHERE session_id = %s
                   RETURNING id, seq""",
                (session_id, message.role, message.speaker, message.content,
                 _json(message.tool_calls), message.tool_name, message.tool_call_id, created,
                 message.input_tokens, message.output_tokens, _json(message.meta), session_id),
            ).fetchone()  # fmt: skip
        assert row is not None
        return Message(
            **{
                **message.__dict__,
                "id": int(row[0]),
                "seq": int(row[1]),
                "session_id": session_id,
                "created_at": created,
            }
        )

    def append_many(self, session_id: str, messages: Sequence[Message]) -> list[Message]:
        """``append`` for many messages in one statement (positions in order after the
        session's last), so a bulk import costs a round trip per session, not per row."""
        if not messages:
            return []
        now = clock.timestamp()
        created = [m.created_at if m.created_at is not None else now for m in messages]
        columns = (
            [m.role for m in messages], [m.speaker for m in messages],
            [m.content for m in messages], [_json(m.tool_calls) for m in messages],
            [m.tool_name for m in messages], [m.tool_call_id for m in messages], created,
            [m.input_tokens for m in messages], [m.output_tokens for m in messages],
            [_json(m.meta) for m in messages],
        )  # fmt: skip
        conn = self._conn()
        with txn(conn):
            conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (f"seq:{session_id}",))
            rows = conn.execute(
                """INSERT INTO messages (session_id, seq, role, speaker, content, tool_calls,
                                         tool_name, tool_call_id, created_at, input_tokens,
                                         output_tokens, meta)
                   SELECT %s, b.last + t.n, t.role, t.speaker, t.content, t.tool_calls,
                          t.tool_name, t.tool_call_id, t.created_at, t.input_tokens,
                          t.output_tokens, t.meta
                   FROM (SELECT COALESCE(MAX(seq), 0) AS last FROM messages
                         WHERE session_id = %s) b,
                        unnest(%s::text[], %s::text[], %s::text[], %s::text[], %s::text[],
                               %s::text[], %s::float8[], %s::int[], %s::int[], %s::text[])
                        WITH ORDINALITY AS t(role, speaker, content, tool_calls, tool_name,
                                             tool_call_id, created_at, input_tokens,
                                             output_tokens, meta, n)
                   RETURNING id, seq""",
                (session_id, session_id, *columns),
            ).fetchall()
        rows.sort(key=lambda r: int(r[1]))  # the n-th message took the n-th position
        return [
            Message(
                **{
                    **m.__dict__,
                    "id": int(r[0]),
                    "seq": int(r[1]),
                    "session_id": session_id,
                    "created_at": at,
                }
            )
            for m, r, at in zip(messages, rows, created, strict=True)
        ]

    def messages(
        self,
        session_id: str,
        *,
        start_seq: int = 1,
        limit: int | None = None,
        include_inactive: bool = True,
    ) -> list[Message]:
        active = "" if include_inactive else "AND active = 1"
        rows = self._conn().execute(
            f"""SELECT * FROM messages WHERE session_id = %s AND seq >= %s {active}
                ORDER BY seq LIMIT %s""",
            (session_id, start_seq, limit),
        )
        return [Message.from_row(r) for r in rows]

    def message(self, message_id: int) -> Message | None:
        row = self._conn().execute("SELECT * FROM messages WHERE id = %s", (message_id,)).fetchone()
        return Message.from_row(row) if row else None

    def rewrite(self, message_id: int, message: Message) -> None:
        self._conn().execute(
            """UPDATE messages SET role = %s, speaker = %s, content = %s, tool_calls = %s,
                                   tool_name = %s, tool_call_id = %s, meta = %s WHERE id = %s""",
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
            "UPDATE messages SET active = 0, compacted = 1 WHERE session_id = %s AND seq = ANY(%s)",
            (session_id, list(seqs)),
        )
        return int(cur.rowcount)

    def message_ids(self, session_id: str, seqs: Sequence[int]) -> dict[int, int]:
        if not seqs:
            return {}
        rows = self._conn().execute(
            "SELECT seq, id FROM messages WHERE session_id = %s AND seq = ANY(%s)",
            (session_id, list(seqs)),
        )
        return {int(seq): int(mid) for seq, mid in rows}

    def all_messages(self) -> list[Message]:
        return [
            Message.from_row(r) for r in self._conn().execute("SELECT * FROM messages ORDER BY id")
        ]

    def count_messages(self, *, include_system: bool = True) -> int:
        where = "" if include_system else " WHERE role <> 'system'"
        row = self._conn().execute(f"SELECT count(*) FROM messages{where}").fetchone()
        return int(row[0]) if row else 0

    def ids_in(self, scope: SearchFilters) -> list[int]:
        where, params = scope_sql.messages(scope)
        rows = self._conn().execute(
            "SELECT m.id FROM messages m JOIN sessions s ON s.id = m.session_id "
            f"WHERE true {where}",
            params,
        )
        return [int(r[0]) for r in rows]

    def by_meta_key(self, key: str) -> list[tuple[str, int, str]]:
        rows = self._conn().execute(
            "SELECT meta::jsonb ->> %s, id, session_id FROM messages", (key,)
        )
        return [(str(r[0]), int(r[1]), str(r[2])) for r in rows]

    def newest_message_at(self) -> float | None:
        row = self._conn().execute("SELECT max(created_at) FROM messages").fetchone()
        return None if row is None or row[0] is None else float(row[0])

    def journal_flushes(self, since: float, until: float) -> list[tuple[str | None, str]]:
        rows = self._conn().execute(
            "SELECT m.tool_calls, s.source FROM messages m "
            "JOIN sessions s ON s.id = m.session_id WHERE m.role = 'assistant' "
            "AND m.tool_calls LIKE %s AND m.created_at BETWEEN %s AND %s",
            ("%journal_append%", since, until),
        )
        return [(r[0], str(r[1])) for r in rows]

    # -- what ranking and dreaming read ----------------------------------------

    def facts(
        self, ids: list[Any], scope: SearchFilters, *, pairs: bool = False
    ) -> list[tuple[Any, ...]]:
        where, params = scope_sql.messages(scope)
        pick: list[object] = list(_pairs(ids)) if pairs else [[int(i) for i in ids]]
        at = _AT_PAIRS if pairs else "m.id = ANY(%s)"
        sql = f"""
            SELECT m.id, m.session_id, m.created_at, s.source, m.seq, m.speaker
            FROM messages m JOIN sessions s ON s.id = m.session_id
            WHERE {at} AND m.role <> 'system' {where}"""
        return list(self._conn().execute(sql, (*pick, *params)).fetchall())

    def facts_at(self, pairs: list[list[Any]]) -> list[tuple[Any, ...]]:
        sql = f"""SELECT m.id, m.session_id, m.created_at, m.seq, m.speaker FROM messages m
                  WHERE {_AT_PAIRS} AND m.role <> 'system'"""
        return list(self._conn().execute(sql, _pairs(pairs)).fetchall())

    def facts_after(self, last_id: int) -> list[tuple[Any, ...]]:
        # fetchall, not the cursor's iterator: one row at a time cost 6 s at 1M messages
        return list(
            self._conn()
            .execute(
                "SELECT id, session_id, seq, created_at, role = 'system', speaker FROM messages "
                "WHERE id > %s ORDER BY id",
                (last_id,),
            )
            .fetchall()
        )

    def sources(self, session_ids: list[str]) -> list[tuple[str, str]]:
        return list(
            self._conn().execute(
                "SELECT id, source FROM sessions WHERE id = ANY(%s)", (list(session_ids),)
            )
        )

    def with_source(self, ids: list[int]) -> list[tuple[Message, str]]:
        rows = self._conn().execute(
            "SELECT m.*, s.source AS session_source "
            "FROM messages m JOIN sessions s ON s.id = m.session_id WHERE m.id = ANY(%s)",
            (list(ids),),
        )
        return [(Message.from_row(r), str(r["session_source"])) for r in rows]

    def said_since(self, sources: list[str], since: float) -> list[Message]:
        rows = self._conn().execute(
            "SELECT m.* FROM messages m JOIN sessions s ON s.id = m.session_id "
            "WHERE s.source = ANY(%s) AND m.role IN ('user', 'assistant') "
            "AND m.created_at >= %s",
            (list(sources), since),
        )
        return [Message.from_row(r) for r in rows]

    def tool_calls_since(
        self, names: list[str], excluding: list[str], since: float
    ) -> list[tuple[str | None, float]]:
        rows = self._conn().execute(
            "SELECT m.tool_calls, m.created_at FROM messages m JOIN sessions s "
            "ON s.id = m.session_id WHERE m.role = 'assistant' AND m.tool_calls LIKE ANY(%s) "
            "AND s.source <> ALL(%s) AND m.created_at >= %s",
            ([f"%{t}%" for t in names], list(excluding), since),
        )
        return [(r[0], float(r[1])) for r in rows]
