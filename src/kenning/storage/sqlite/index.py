"""The full-text index in ``state.db``: FTS5 ``message_fts`` / ``chunk_fts``.

Triggers (migration m002) queue every new or edited message; ``sync`` drains
the queue, writing the FTS row (``body`` = the message, ``ctx`` = the message
it replies to, both with CJK bigrams). Each batch commits on its own, so an
interrupted run keeps what it finished.

Matching: user text reaches FTS5 only through ``text.fts_or_query`` (so no
syntax error is possible), scope filters are part of the SQL (rows outside
the scope are never scored, so they can never leak), and scores are
``-bm25`` (higher is better).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from typing import Literal

from kenning.storage.identity import indexable, message_docs
from kenning.storage.query import Kind, SearchFilters, SearchHit
from kenning.storage.sqlite import scope as scope_sql
from kenning.storage.sqlite.connection import Conn, translate_errors, write_txn
from kenning.storage.text import cjk_index_text, fts_or_query, quote_term

# bm25 weight of the ``ctx`` column (the previous message): a match in the
# context is weaker evidence than one in the message itself. Re-measured on
# LoCoMo conversations 1-5 (dev) with the rest of the ranking as it is now:
# R@10 .818 at .35, .802 without the column, .813 at .6; held-out 6-10 .780,
# .777 and .774.
CTX_WEIGHT = 0.35
TABLES = {"message": "message_fts", "chunk": "chunk_fts"}
Table = Literal["message", "chunk"]

ROWS_WITH_PREVIOUS = """
    SELECT m.id, m.role, m.speaker, m.content, m.tool_calls,
           p.role AS p_role, p.speaker AS p_speaker, p.content AS p_content,
           p.tool_calls AS p_tool_calls
    FROM messages m
    LEFT JOIN messages p ON p.id = (
        SELECT x.id FROM messages x
        WHERE x.session_id = m.session_id AND x.seq < m.seq AND x.role != 'system'
        ORDER BY x.seq DESC LIMIT 1)
    WHERE m.id IN (SELECT value FROM json_each(?))
"""


def _ensure_temp(conn: Conn) -> None:
    """Per-connection scratch tables: a tokenizer probe and vocabulary views."""
    have = {r[0] for r in conn.execute("SELECT name FROM temp.sqlite_master")}
    if "kenning_qtok" not in have:
        conn.execute(
            "CREATE VIRTUAL TABLE temp.kenning_qtok USING fts5(t, tokenize='porter unicode61')"
        )
    if "kenning_qtok_v" not in have:
        conn.execute(
            "CREATE VIRTUAL TABLE temp.kenning_qtok_v USING fts5vocab(temp, kenning_qtok, instance)"
        )
    for table in ("message_fts", "chunk_fts"):
        if f"{table}_vocab" not in have:
            conn.execute(
                f"CREATE VIRTUAL TABLE temp.{table}_vocab USING fts5vocab(main, {table}, col)"
            )


# term -> its indexed tokens. The tokenizer is fixed, so this never goes
# stale; the bound only caps memory (a user's distinct query words).
_FORMS: dict[str, frozenset[str]] = {}
_FORMS_MAX = 50_000


def _indexed_forms(conn: Conn, term: str) -> frozenset[str]:
    """The tokens FTS5 indexes for ``term``, via the scratch table on a cache miss.

    Cached because the scratch round trip (delete, insert, vocab read) is a
    write on every search otherwise.
    """
    forms = _FORMS.get(term)
    if forms is None:
        conn.execute("DELETE FROM temp.kenning_qtok")
        conn.execute(
            "INSERT INTO temp.kenning_qtok (rowid, t) VALUES (1, ?)", (cjk_index_text(term),)
        )
        forms = frozenset(str(r[0]) for r in conn.execute("SELECT term FROM temp.kenning_qtok_v"))
        if len(_FORMS) >= _FORMS_MAX:
            _FORMS.clear()
        _FORMS[term] = forms
    return forms


@translate_errors
class SqliteIndex:
    def __init__(self, conn: Callable[[], Conn]) -> None:
        self._conn = conn

    # -- keeping it in step ------------------------------------------------

    def pending(self) -> int:
        """Messages waiting for their FTS row."""
        return int(self._conn().execute("SELECT count(*) FROM search_fts_queue").fetchone()[0])

    def sync(self, *, batch: int = 2000) -> int:
        """Write FTS rows for every queued message; returns how many."""
        conn = self._conn()
        done = 0
        while True:
            ids = [
                r[0]
                for r in conn.execute("SELECT message_id FROM search_fts_queue LIMIT ?", (batch,))
            ]
            if not ids:
                return done
            with write_txn(conn):
                rows = conn.execute(ROWS_WITH_PREVIOUS, (json.dumps(ids),)).fetchall()
                rows = indexable(rows)
                conn.executemany(
                    "DELETE FROM message_fts WHERE rowid = ?", [(r["id"],) for r in rows]
                )
                values = []
                for row in rows:
                    body, prev = message_docs(row)
                    values.append((row["id"], cjk_index_text(body), cjk_index_text(prev or "")))
                conn.executemany(
                    "INSERT INTO message_fts (rowid, body, ctx) VALUES (?, ?, ?)", values
                )
                conn.executemany(
                    "DELETE FROM search_fts_queue WHERE message_id = ?", [(i,) for i in ids]
                )
            done += len(ids)

    def reset(self) -> None:
        """Drop every message FTS row and queue every message again."""
        conn = self._conn()
        with write_txn(conn):
            conn.execute("DELETE FROM message_fts")
            conn.execute("DELETE FROM search_fts_queue")
            conn.execute(
                "INSERT INTO search_fts_queue SELECT id FROM messages WHERE role != 'system'"
            )

    # -- statistics ----------------------------------------------------------

    def fingerprint(self) -> bytes | None:
        """Changes whenever ``message_fts`` changes (None: unknown, count again).

        FTS5 rewrites its averages (id 1: row and token totals) and structure
        (id 10: carries a cookie bumped on every write) records in ``_data`` on
        each insert or delete, so unchanged blobs mean an unchanged index;
        ``count(*)`` itself is O(n) (~0.5 ms at 100k, 5 at 1M).
        """
        rows = (
            self._conn()
            .execute("SELECT block FROM message_fts_data WHERE id IN (1, 10) ORDER BY id")
            .fetchall()
        )
        return b"|".join(bytes(r[0]) for r in rows) if len(rows) == 2 else None

    def doc_count(self, table: Table = "message") -> int:
        """Documents in the message (or chunk) index."""
        sql = (
            "SELECT count(*) FROM message_fts_docsize"
            if table == "message"
            else "SELECT count(*) FROM chunk_fts"
        )
        return int(self._conn().execute(sql).fetchone()[0])

    def stems(self, terms: Iterable[str]) -> list[str]:
        """Each term as the index holds it: its porter stem (the longest token if it splits)."""
        conn = self._conn()
        _ensure_temp(conn)
        out = []
        for term in terms:
            forms = _indexed_forms(conn, term)
            out.append(max(sorted(forms), key=len) if forms else term)
        return out

    def term_doc_counts(
        self, table: Table, terms: list[str], known: dict[str, int] | None = None
    ) -> list[int]:
        """Documents whose ``body`` holds each term (max over the term's indexed tokens).

        The indexed form of a term (porter stem, CJK bigrams) comes from feeding it
        through a scratch FTS5 table with the same tokenizer. ``known`` caches
        token -> count; the caller clears it whenever the index changes.
        """
        if not terms:
            return []
        conn = self._conn()
        _ensure_temp(conn)  # also after a reconnect: temp tables live per connection
        tokens = [_indexed_forms(conn, t) for t in terms]
        counts = known if known is not None else {}
        ask = sorted(set().union(*tokens) - counts.keys())
        if ask:
            marks = ",".join("?" * len(ask))
            counts.update(dict.fromkeys(ask, 0))
            counts.update(
                (str(t), int(d))
                for t, d in conn.execute(
                    f"SELECT term, doc FROM temp.{TABLES[table]}_vocab "
                    f"WHERE col = 'body' AND term IN ({marks})",
                    ask,
                )
            )
        return [max((counts[t] for t in forms), default=0) for forms in tokens]

    # -- matching ------------------------------------------------------------

    def _ranked(
        self, sql: str, terms: list[str], params: list[object], limit: int
    ) -> list[tuple[int, float]]:
        """Run a ``MATCH ? … LIMIT ?`` query for the OR of ``terms``; (rowid, score) best first."""
        match = fts_or_query(terms)
        if not match:
            return []
        rows = self._conn().execute(sql, (match, *params, limit))
        return [(int(r[0]), float(r[1])) for r in rows]

    def match_messages(
        self, terms: list[str], scope: SearchFilters, limit: int
    ) -> list[tuple[int, float]]:
        """(message id, -bm25) best first for the OR of ``terms``, inside ``scope``."""
        where, params = scope_sql.messages(scope)
        if where:
            sql = f"""SELECT f.rowid, -bm25(message_fts, 1.0, {CTX_WEIGHT}) AS score
                      FROM message_fts f
                      JOIN messages m ON m.id = f.rowid
                      JOIN sessions s ON s.id = m.session_id
                      WHERE message_fts MATCH ? {where}
                      ORDER BY score DESC LIMIT ?"""
        else:
            # Unscoped: no join. Every FTS row is a live non-system message (the
            # triggers keep it so), and SQLite would otherwise run the join for
            # every matching row before sorting: 2.5x the cost at 100k messages.
            sql = f"""SELECT rowid, -bm25(message_fts, 1.0, {CTX_WEIGHT}) AS score
                      FROM message_fts WHERE message_fts MATCH ?
                      ORDER BY score DESC LIMIT ?"""
        return self._ranked(sql, terms, params, limit)

    def match_chunks(
        self, terms: list[str], scope: SearchFilters, limit: int
    ) -> list[tuple[int, float]]:
        """(chunk id, -bm25) best first for the OR of ``terms``, inside ``scope``."""
        where, params = scope_sql.chunks(scope)
        sql = f"""SELECT x.rowid, -bm25(chunk_fts, 1.0, {CTX_WEIGHT}) AS score
                  FROM chunk_fts x
                  JOIN memory_chunks c ON c.id = x.rowid
                  JOIN memory_files mf ON mf.path = c.path
                  WHERE chunk_fts MATCH ? {where}
                  ORDER BY score DESC LIMIT ?"""
        return self._ranked(sql, terms, params, limit)

    def pending_matches(
        self, terms: list[str], scope: SearchFilters, limit: int
    ) -> dict[int, list[int]]:
        """Queued messages' terms, through a scratch FTS5 table of this connection's
        own (``temp``: a read-only connection may write it; ``message_fts`` is untouched)."""
        if not terms:
            return {}
        conn = self._conn()
        where, params = scope_sql.messages(scope)
        ids = [
            int(r[0])
            for r in conn.execute(
                "SELECT m.id FROM search_fts_queue q JOIN messages m ON m.id = q.message_id "
                f"JOIN sessions s ON s.id = m.session_id WHERE 1 {where} "
                "ORDER BY m.id DESC LIMIT ?",
                (*params, limit),
            )
        ]
        if not ids:
            return {}
        have = {r[0] for r in conn.execute("SELECT name FROM temp.sqlite_master")}
        if "kenning_pending" not in have:
            conn.execute(
                "CREATE VIRTUAL TABLE temp.kenning_pending USING fts5(body, "
                "tokenize='porter unicode61')"
            )
        conn.execute("DELETE FROM temp.kenning_pending")
        rows = indexable(conn.execute(ROWS_WITH_PREVIOUS, (json.dumps(ids),)).fetchall())
        conn.executemany(
            "INSERT INTO temp.kenning_pending (rowid, body) VALUES (?, ?)",
            [(r["id"], cjk_index_text(message_docs(r)[0])) for r in rows],
        )
        held: dict[int, list[int]] = {}
        for n, term in enumerate(terms):
            for (rowid,) in conn.execute(
                "SELECT rowid FROM temp.kenning_pending WHERE kenning_pending MATCH ?",
                (quote_term(term),),
            ):
                held.setdefault(int(rowid), []).append(n)
        return held

    def match_plain(self, match: str, limit: int) -> list[int]:
        """Message ids for a raw FTS5 ``MATCH`` expression by plain ``bm25``: the
        bare-FTS5 baseline the benchmarks time Kenning's ranking against."""
        rows = self._conn().execute(
            "SELECT rowid FROM message_fts WHERE message_fts MATCH ? "
            "ORDER BY bm25(message_fts) LIMIT ?",
            (match, limit),
        )
        return [int(r[0]) for r in rows]

    def containing(self, table: Table, term: str, ids: Sequence[int]) -> list[int]:
        """Which of ``ids`` hold ``term`` (through the index's own tokenizer)."""
        marks = ",".join("?" * len(ids))
        name = TABLES[table]
        rows = self._conn().execute(
            f"SELECT rowid FROM {name} WHERE {name} MATCH ? AND rowid IN ({marks})",
            (quote_term(term), *ids),
        )
        return [int(r[0]) for r in rows]

    def containing_each(
        self, table: Table, terms: Sequence[str], ids: Sequence[int]
    ) -> list[list[int]]:
        # In-process: a lookup per term costs no round trip.
        return [self.containing(table, term, ids) for term in terms]

    def hits(self, scored: list[tuple[float, Kind, int]]) -> list[SearchHit]:
        """The ranked (score, kind, id) list as hits with their stored text, in order."""
        conn = self._conn()
        msg_ids = [i for _, k, i in scored if k == "message"]
        chunk_ids = [i for _, k, i in scored if k == "chunk"]
        msgs = {
            int(r["id"]): r
            for r in conn.execute(
                "SELECT m.id, m.session_id, m.seq, m.role, m.speaker, m.created_at, m.content, "
                "s.source FROM messages m JOIN sessions s ON s.id = m.session_id "
                "WHERE m.id IN (SELECT value FROM json_each(?))",
                (json.dumps(msg_ids),),
            )
        }
        chunks = {
            int(r["id"]): r
            for r in conn.execute(
                "SELECT id, path, line_start, line_end, text FROM memory_chunks "
                "WHERE id IN (SELECT value FROM json_each(?))",
                (json.dumps(chunk_ids),),
            )
        }
        hits: list[SearchHit] = []
        for score, kind, item in scored:
            if kind == "message" and item in msgs:
                r = msgs[item]
                hits.append(
                    SearchHit(
                        "message", score, item, session_id=r["session_id"], seq=r["seq"],
                        role=r["role"], speaker=r["speaker"], created_at=r["created_at"],
                        content=r["content"], source=r["source"],
                    )
                )  # fmt: skip
            elif kind == "chunk" and item in chunks:
                c = chunks[item]
                hits.append(
                    SearchHit(
                        "chunk", score, item, path=c["path"], line_start=c["line_start"],
                        line_end=c["line_end"], text=c["text"],
                    )
                )  # fmt: skip
        return hits

    def message_texts(self, ids: list[int]) -> dict[int, str]:
        """id -> content of each message in ``ids`` that exists."""
        rows = self._conn().execute(
            "SELECT id, content FROM messages WHERE id IN (SELECT value FROM json_each(?))",
            (json.dumps(ids),),
        )
        return {int(r[0]): r[1] for r in rows}
