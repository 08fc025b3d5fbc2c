"""A bare FTS5 table in memory: the "plain FTS5" baseline the benchmarks rank against.

Porter-stemmed, plain ``bm25`` with no column weights, no pruning and no
fusion: what an archive with only SQLite's own full-text search would return.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable


class PlainFts:
    def __init__(self) -> None:
        self._conn = sqlite3.connect(":memory:")
        self._conn.execute("CREATE VIRTUAL TABLE f USING fts5(body, tokenize='porter unicode61')")

    def add(self, docs: Iterable[tuple[int, str]]) -> None:
        """(rowid, indexed text) pairs."""
        self._conn.executemany("INSERT INTO f (rowid, body) VALUES (?, ?)", list(docs))

    def match(self, query: str, limit: int) -> list[int]:
        """Rowids best first for an FTS5 ``MATCH`` expression."""
        sql = "SELECT rowid FROM f WHERE f MATCH ? ORDER BY bm25(f) LIMIT ?"
        return [int(r[0]) for r in self._conn.execute(sql, (query, limit))]

    def close(self) -> None:
        self._conn.close()
