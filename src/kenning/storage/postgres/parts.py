"""Memory-file chunks, recalls and the embedding cache on PostgreSQL.

The same tables and rules as SQLite's ``chunks``, ``recalls`` and ``cache``:
a file's chunks, their tsvectors and vectors go together (foreign keys
cascade), recalls keep each search's hits, the cache keeps vectors by
(identity, kind, hash).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from kenning.storage.postgres import scope as scope_sql
from kenning.storage.postgres.connection import Conn, translate_errors, txn
from kenning.storage.postgres.index import write_docs
from kenning.storage.postgres.vectors import state_get, state_set
from kenning.storage.query import SearchFilters, SearchHit
from kenning.storage.text import MAX_INDEX_CHARS

if TYPE_CHECKING:
    from kenning.storage.records import Chunk


@translate_errors
class PostgresChunks:
    def __init__(self, conn: Callable[[], Conn]) -> None:
        self._conn = conn

    def recipe(self) -> str | None:
        return state_get(self._conn(), "chunking")

    def set_recipe(self, recipe: str) -> None:
        state_set(self._conn(), "chunking", recipe)

    def files(self) -> dict[str, tuple[int, int, str]]:
        rows = self._conn().execute("SELECT path, size, mtime_ns, hash FROM memory_files")
        return {r[0]: (int(r[1]), int(r[2]), str(r[3])) for r in rows}

    def remove_file(self, path: str) -> None:
        """Forget ``path``: its chunks, their tsvectors and vectors go with it."""
        self._conn().execute("DELETE FROM memory_files WHERE path = %s", (path,))

    def touch_file(self, path: str, size: int, mtime_ns: int) -> None:
        self._conn().execute(
            "UPDATE memory_files SET size = %s, mtime_ns = %s WHERE path = %s",
            (size, mtime_ns, path),
        )

    def replace_file(
        self,
        path: str,
        *,
        size: int,
        mtime_ns: int,
        digest: str,
        decays: bool,
        dated_at: float,
        chunks: Iterable[Chunk],
    ) -> int:
        conn = self._conn()
        with txn(conn):
            self.remove_file(path)
            conn.execute(
                "INSERT INTO memory_files (path, size, mtime_ns, hash, decays, dated_at) "
                "VALUES (%s, %s, %s, %s, %s, %s)",
                (path, size, mtime_ns, digest, int(decays), dated_at),
            )
            docs = []
            for chunk in chunks:
                text_hash = hashlib.sha256(chunk.text.encode("utf-8")).hexdigest()
                row = conn.execute(
                    "INSERT INTO memory_chunks (path, line_start, line_end, hash, text) "
                    "VALUES (%s, %s, %s, %s, %s) RETURNING id",
                    (path, chunk.line_start, chunk.line_end, text_hash, chunk.text),
                ).fetchone()
                assert row is not None
                docs.append((int(row[0]), chunk.text[:MAX_INDEX_CHARS], ""))
            write_docs(conn, "chunk", docs)
        return len(docs)

    def ids_in(self, scope: SearchFilters) -> set[int]:
        where, params = scope_sql.chunks(scope)
        rows = self._conn().execute(
            "SELECT c.id FROM memory_chunks c JOIN memory_files mf ON mf.path = c.path "
            f"WHERE true {where}",
            params,
        )
        return {int(r[0]) for r in rows}

    def dating(self, ids: list[int]) -> list[tuple[int, bool, float]]:
        rows = self._conn().execute(
            "SELECT c.id, mf.decays, mf.dated_at FROM memory_chunks c "
            "JOIN memory_files mf ON mf.path = c.path WHERE c.id = ANY(%s) ORDER BY c.id",
            (list(ids),),
        )
        return [(int(r[0]), bool(r[1]), float(r[2])) for r in rows]

    def lines(self, ids: list[int]) -> list[tuple[int, str, int, int]]:
        rows = self._conn().execute(
            "SELECT id, path, line_start, line_end FROM memory_chunks WHERE id = ANY(%s) "
            "ORDER BY id",
            (list(ids),),
        )
        return [(int(r[0]), str(r[1]), int(r[2]), int(r[3])) for r in rows]


@translate_errors
class PostgresRecalls:
    def __init__(self, conn: Callable[[], Conn]) -> None:
        self._conn = conn

    def record(
        self, query: str, hits: list[SearchHit], mode: str, scope: SearchFilters, at: float
    ) -> int:
        filters = (
            None
            if scope.is_empty()
            else json.dumps({k: v for k, v in scope.__dict__.items() if v not in (None, ())})
        )
        conn = self._conn()
        with txn(conn):
            row = conn.execute(
                "INSERT INTO recalls (query, at, mode, filters) VALUES (%s, %s, %s, %s) "
                "RETURNING id",
                (query, at, mode, filters),
            ).fetchone()
            assert row is not None
            recall_id = int(row[0])
            if hits:
                conn.execute(
                    "INSERT INTO recall_hits (recall_id, rank, kind, item_id, score) "
                    "SELECT %s, r, k, i, s FROM unnest(%s::int[], %s::text[], %s::bigint[], "
                    "%s::float8[]) AS t(r, k, i, s)",
                    (
                        recall_id,
                        list(range(1, len(hits) + 1)),
                        [h.kind for h in hits],
                        [h.id for h in hits],
                        [h.score for h in hits],
                    ),
                )
        return recall_id

    def hits_since(self, since: float) -> list[tuple[int, str, float, str, int, int]]:
        rows = self._conn().execute(
            "SELECT r.id, r.query, r.at, h.kind, h.item_id, h.rank FROM recalls r "
            "JOIN recall_hits h ON h.recall_id = r.id WHERE r.at >= %s ORDER BY r.id, h.rank",
            (since,),
        )
        return [(int(r[0]), str(r[1]), float(r[2]), str(r[3]), int(r[4]), int(r[5])) for r in rows]


@translate_errors
class PostgresEmbeddingCache:
    def __init__(self, conn: Callable[[], Conn]) -> None:
        self._conn = conn

    def get_many(
        self, identity: str, kind: str, hashes: Sequence[bytes]
    ) -> dict[bytes, np.ndarray]:
        if not hashes:
            return {}
        rows = self._conn().execute(
            "SELECT hash, v FROM embed_cache WHERE identity = %s AND kind = %s "
            "AND hash = ANY(%s::bytea[])",
            (identity, kind, [bytes(h) for h in hashes]),
        )
        return {bytes(h): np.frombuffer(bytes(v), dtype=np.float32) for h, v in rows}

    def put_many(self, identity: str, kind: str, items: Sequence[tuple[bytes, np.ndarray]]) -> None:
        """Store (hash, vector) pairs, all or none."""
        unique = dict(items)  # one row may be written once per statement
        if not unique:
            return
        self._conn().execute(
            "INSERT INTO embed_cache (identity, kind, hash, v) "
            "SELECT %s, %s, h, v FROM unnest(%s::bytea[], %s::bytea[]) AS t(h, v) "
            "ON CONFLICT (identity, kind, hash) DO UPDATE SET v = EXCLUDED.v",
            (
                identity,
                kind,
                [bytes(h) for h in unique],
                [np.ascontiguousarray(v, np.float32).tobytes() for v in unique.values()],
            ),
        )
