"""The embedding cache in SQLite: ``embed_cache(identity, kind, hash, v)``.

In ``state.db`` (created by migration m002) or in a standalone file opened
with ``open_cache`` (the benchmarks' cache in the user cache directory);
both use the one table definition, ``migrations.EMBED_CACHE_DDL``.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from kenning.storage.sqlite.connection import Conn, translate_errors, write_txn
from kenning.storage.sqlite.migrations import EMBED_CACHE_DDL

_BATCH = 500  # SQLite caps bound parameters


@translate_errors
class SqliteEmbeddingCache:
    def __init__(self, conn: Callable[[], Conn]) -> None:
        self._conn = conn

    def get_many(
        self, identity: str, kind: str, hashes: Sequence[bytes]
    ) -> dict[bytes, np.ndarray]:
        """hash -> the cached float32 vector, for the ``hashes`` that are cached."""
        found: dict[bytes, np.ndarray] = {}
        conn = self._conn()
        for start in range(0, len(hashes), _BATCH):
            part = hashes[start : start + _BATCH]
            marks = ",".join("?" * len(part))
            rows = conn.execute(
                f"SELECT hash, v FROM embed_cache WHERE identity = ? AND kind = ? "
                f"AND hash IN ({marks})",
                (identity, kind, *part),
            ).fetchall()
            for h, blob in rows:
                found[bytes(h)] = np.frombuffer(blob, dtype=np.float32)
        return found

    def put_many(self, identity: str, kind: str, items: Sequence[tuple[bytes, np.ndarray]]) -> None:
        """Store (hash, vector) pairs, all or none."""
        conn = self._conn()
        with write_txn(conn):
            conn.executemany(
                "INSERT OR REPLACE INTO embed_cache (identity, kind, hash, v) VALUES (?, ?, ?, ?)",
                [
                    (identity, kind, h, np.ascontiguousarray(v, np.float32).tobytes())
                    for h, v in items
                ],
            )


def open_cache(path: Path) -> SqliteEmbeddingCache:
    """A standalone cache database (WAL, created on first use)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
    conn.execute("PRAGMA busy_timeout = 30000")
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")
    conn.execute(EMBED_CACHE_DDL.replace("CREATE TABLE", "CREATE TABLE IF NOT EXISTS", 1))
    return SqliteEmbeddingCache(lambda: conn)
