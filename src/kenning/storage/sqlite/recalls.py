"""Recalls in ``state.db``: what each search returned.

``recalls`` holds one row per search (query, time, mode, filters) and
``recall_hits`` one row per returned hit (kind, id, rank, score) — the signal
later used to promote often-recalled memories.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from kenning.storage.query import SearchFilters, SearchHit
from kenning.storage.sqlite.connection import Conn, translate_errors, write_txn


@translate_errors
class SqliteRecalls:
    def __init__(self, conn: Callable[[], Conn]) -> None:
        self._conn = conn

    def record(
        self, query: str, hits: list[SearchHit], mode: str, scope: SearchFilters, at: float
    ) -> int:
        """Store the query and each returned hit (kind, id, rank, score); returns the recall id."""
        filters = (
            None
            if scope.is_empty()
            else json.dumps({k: v for k, v in scope.__dict__.items() if v not in (None, ())})
        )
        conn = self._conn()
        with write_txn(conn):
            cur = conn.execute(
                "INSERT INTO recalls (query, at, mode, filters) VALUES (?, ?, ?, ?) RETURNING id",
                (query, at, mode, filters),
            )
            recall_id = int(cur.fetchone()[0])
            conn.executemany(
                "INSERT INTO recall_hits (recall_id, rank, kind, item_id, score) "
                "VALUES (?, ?, ?, ?, ?)",
                [(recall_id, rank, h.kind, h.id, h.score) for rank, h in enumerate(hits, 1)],
            )
        return recall_id

    def hits_since(self, since: float) -> list[tuple[int, str, float, str, int, int]]:
        """(recall id, query, at, kind, item id, rank) of every hit recalled since ``since``,
        by recall and rank."""
        rows = (
            self._conn()
            .execute(
                "SELECT r.id, r.query, r.at, h.kind, h.item_id, h.rank FROM recalls r "
                "JOIN recall_hits h ON h.recall_id = r.id WHERE r.at >= ? ORDER BY r.id, h.rank",
                (since,),
            )
            .fetchall()
        )
        return [(int(r[0]), str(r[1]), float(r[2]), str(r[3]), int(r[4]), int(r[5])) for r in rows]
