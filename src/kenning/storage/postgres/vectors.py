"""Vectors on PostgreSQL: the exact float32 blob and a pgvector copy per message and chunk.

Same queue, identity and batch rules as ``storage.sqlite.vectors``. The blob
(``v``) is what engines load (bit-identical to SQLite's); the pgvector column
(``e``) serves ``nearest`` and, with ``search.vector_index``, the engine's
dense pool above ``search.approximate_above`` (``indexed_nearest``) through an HNSW index
(cosine), made for the identity's dimensions when an identity is claimed,
dropped on ``reset`` and, around a bulk load, dropped and built once after.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict
from typing import Literal

import numpy as np

from kenning.embed.base import Embedder, Progress
from kenning.storage.identity import (
    IndexIdentity,
    IndexIdentityError,
    identity_problem,
    indexable,
    message_docs,
    recipe_changed,
)
from kenning.storage.postgres import scope as scope_sql
from kenning.storage.postgres.connection import (
    BUILD_MEMORY_MB,
    Conn,
    raise_build_memory,
    translate_errors,
    txn,
    vacuum,
)
from kenning.storage.postgres.index import ROWS_WITH_PREVIOUS
from kenning.storage.query import SearchFilters
from kenning.storage.text import MAX_PASSAGE_CHARS, passage_text

Kind = Literal["message", "chunk"]
# table, id column, the search_state counter a deletion bumps (see m002/m003)
_TABLES = {
    "message": ("message_vectors", "message_id", "vector_deletes"),
    "chunk": ("chunk_vectors", "chunk_id", "chunk_vector_deletes"),
}
# hnsw.ef_search is the candidate list a scan keeps, so at least the pool it
# must return; twice the pool is the recall/speed point (``kenning bench scale``).
_EF_PER_RESULT = 2
_EF_MAX = 1000  # pgvector's ceiling
# The most memory an HNSW build asks for (the server must have it to give;
# past it, the build goes on more slowly instead of failing).
_GRAPH_MAX_MB = 4096


def state_get(conn: Conn, key: str) -> str | None:
    row = conn.execute("SELECT value FROM search_state WHERE key = %s", (key,)).fetchone()
    return None if row is None else str(row[0])


def state_set(conn: Conn, key: str, value: str) -> None:
    conn.execute(
        "INSERT INTO search_state (key, value) VALUES (%s, %s) "
        "ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
        (key, value),
    )


def literal(v: np.ndarray) -> str:
    """A pgvector literal holding exactly these float32 values."""
    return "[" + ",".join(repr(float(x)) for x in np.asarray(v, np.float32).tolist()) + "]"


_COPY_HEADER = b"PGCOPY\n\xff\r\n\x00" + bytes(8)  # signature, flags 0, no extension
_COPY_TRAILER = b"\xff\xff"


def copy_rows(ids: Sequence[int], matrix: np.ndarray) -> bytes:
    """(id, blob, vector) rows in COPY's binary format, for ``ids`` and the float32
    ``matrix`` (a row each): the blob is the vector's float32 bytes as stored
    (little-endian), the vector pgvector's binary form (dimensions, 0, floats
    big-endian). Built by numpy in one go: formatted as text per float, a
    million vectors took longer to write than to store."""
    n, dims = matrix.shape
    row = np.dtype(
        [
            ("fields", ">i2"),
            ("id_len", ">i4"),
            ("id", ">i8"),
            ("v_len", ">i4"),
            ("v", "<f4", (dims,)),
            ("e_len", ">i4"),
            ("dims", ">i2"),
            ("unused", ">i2"),
            ("e", ">f4", (dims,)),
        ]
    )
    rows = np.zeros(n, row)
    rows["fields"], rows["id_len"], rows["id"] = 3, 8, ids
    rows["v_len"], rows["v"] = 4 * dims, matrix
    rows["e_len"], rows["dims"], rows["e"] = 4 + 4 * dims, dims, matrix
    return _COPY_HEADER + rows.tobytes() + _COPY_TRAILER


def put(conn: Conn, kind: Kind, items: Sequence[tuple[int, np.ndarray]], replace: bool) -> int:
    """Store (id, vector) pairs of ``kind``; ``replace``: an existing one is overwritten.
    How many rows were written. The rows go in by binary COPY to a scratch table
    of the session, then into the table in one statement."""
    if not items:
        return 0
    table, id_col, _ = _TABLES[kind]
    clash = (
        f"ON CONFLICT ({id_col}) DO UPDATE SET v = EXCLUDED.v, e = EXCLUDED.e"
        if replace
        else "ON CONFLICT DO NOTHING"
    )
    matrix = np.stack([np.asarray(v, np.float32).reshape(-1) for _, v in items])
    with txn(conn):
        held = conn.execute("SELECT to_regclass('pg_temp.vector_load')").fetchone()
        if held is None or held[0] is None:
            conn.execute("CREATE TEMP TABLE vector_load (i BIGINT, b BYTEA, x vector)")
        with conn.cursor().copy("COPY vector_load (i, b, x) FROM STDIN (FORMAT BINARY)") as copy:
            copy.write(copy_rows([i for i, _ in items], matrix))
        written = conn.execute(
            f"INSERT INTO {table} ({id_col}, v, e) SELECT i, b, x FROM vector_load {clash}"
        ).rowcount
        conn.execute("TRUNCATE vector_load")
    return int(written)


def graph_megabytes(vectors: int, dims: int) -> int:
    """The memory pgvector's HNSW build needs to hold ``vectors`` of ``dims`` in its
    graph (the vector and ~1 KB of neighbour lists and bookkeeping each, with
    m = 16), at least ``BUILD_MEMORY_MB`` and at most ``_GRAPH_MAX_MB``: at 1M
    384-dim vectors, ~2.4 GB; 1 GB would hold less than half of them."""
    need = vectors * (4 * dims + 1024) // 2**20 + 64
    return max(BUILD_MEMORY_MB, min(need, _GRAPH_MAX_MB))


def hnsw(conn: Conn, dims: int) -> None:
    """The cosine HNSW indexes for ``dims``-dimensional vectors (pgvector needs the size).

    Inside a transaction (``SET LOCAL`` lasts until it ends)."""
    row = conn.execute("SELECT count(*) FROM message_vectors").fetchone()
    raise_build_memory(conn, graph_megabytes(int(row[0]) if row else 0, dims))
    for table in ("message_vectors", "chunk_vectors"):
        conn.execute(
            f"CREATE INDEX IF NOT EXISTS {table}_hnsw_{dims} ON {table} "
            f"USING hnsw ((e::vector({dims})) vector_cosine_ops)"
        )


def drop_hnsw(conn: Conn) -> None:
    rows = conn.execute(
        "SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() "
        "AND indexname LIKE '%%\\_hnsw\\_%%'"
    ).fetchall()
    for (name,) in rows:
        conn.execute(f'DROP INDEX IF EXISTS "{name}"')


@translate_errors
class PostgresVectors:
    def __init__(self, conn: Callable[[], Conn]) -> None:
        self._conn = conn

    # -- identity ------------------------------------------------------------

    def stored_identity(self) -> IndexIdentity | None:
        raw = state_get(self._conn(), "identity")
        return IndexIdentity(**json.loads(raw)) if raw else None

    def check_identity(self, embedder: Embedder) -> str | None:
        return identity_problem(self.stored_identity(), IndexIdentity.of(embedder))

    def claim_identity(self, embedder: Embedder) -> None:
        if recipe_changed(self.stored_identity(), IndexIdentity.of(embedder)):
            self.reset(embedder)
            return
        problem = self.check_identity(embedder)
        if problem:
            raise IndexIdentityError(problem)
        if self.stored_identity() is None:
            conn = self._conn()
            with txn(conn):
                state_set(conn, "identity", json.dumps(asdict(IndexIdentity.of(embedder))))
                hnsw(conn, embedder.identity.dims)

    def reset(self, embedder: Embedder | None) -> None:
        conn = self._conn()
        with txn(conn):
            conn.execute("DELETE FROM message_vectors")
            conn.execute("DELETE FROM chunk_vectors")
            conn.execute("DELETE FROM search_embed_queue")
            conn.execute(
                "INSERT INTO search_embed_queue SELECT id FROM messages WHERE role <> 'system'"
            )
            conn.execute("DELETE FROM search_state WHERE key = 'identity'")
            drop_hnsw(conn)
            if embedder is not None:
                state_set(conn, "identity", json.dumps(asdict(IndexIdentity.of(embedder))))
                hnsw(conn, embedder.identity.dims)

    # -- filling -------------------------------------------------------------

    def _count(self, sql: str) -> int:
        row = self._conn().execute(sql).fetchone()
        return int(row[0]) if row else 0

    def pending(self) -> int:
        return self._count("SELECT count(*) FROM search_embed_queue")

    def pending_chunks(self) -> int:
        return self._count(
            "SELECT count(*) FROM memory_chunks c LEFT JOIN chunk_vectors v "
            "ON v.chunk_id = c.id WHERE v.chunk_id IS NULL"
        )

    def queued(self) -> list[int]:
        rows = self._conn().execute("SELECT message_id FROM search_embed_queue ORDER BY 1")
        return [int(r[0]) for r in rows]

    def embed_pending(
        self,
        embedder: Embedder,
        *,
        limit: int | None = None,
        batch: int = 64,
        progress: Progress | None = None,
    ) -> int:
        self.claim_identity(embedder)
        conn = self._conn()
        done = 0
        while limit is None or done < limit:
            size = batch if limit is None else min(batch, limit - done)
            ids = [
                int(r[0])
                for r in conn.execute(
                    "SELECT message_id FROM search_embed_queue ORDER BY message_id LIMIT %s",
                    (size,),
                )
            ]
            if not ids:
                break
            rows = indexable(conn.execute(ROWS_WITH_PREVIOUS + " ORDER BY m.id", (ids,)).fetchall())
            passages = [passage_text(*message_docs(r)) for r in rows]
            vectors = (
                embedder.embed_passages(passages) if passages else np.zeros((0, 1), np.float32)
            )
            with txn(conn):
                put(
                    conn,
                    "message",
                    [(int(r["id"]), v) for r, v in zip(rows, vectors, strict=True)],
                    True,
                )
                conn.execute("DELETE FROM search_embed_queue WHERE message_id = ANY(%s)", (ids,))
            done += len(ids)
            if progress is not None:
                progress(len(ids))
        return done

    def pending_passages(self) -> list[str]:
        conn = self._conn()
        ids = [
            int(r[0]) for r in conn.execute("SELECT message_id FROM search_embed_queue ORDER BY 1")
        ]
        if not ids:
            return []
        rows = indexable(conn.execute(ROWS_WITH_PREVIOUS + " ORDER BY m.id", (ids,)).fetchall())
        return [passage_text(*message_docs(r)) for r in rows]

    def embed_chunks(self, embedder: Embedder, *, limit: int | None = None, batch: int = 32) -> int:
        self.claim_identity(embedder)
        conn = self._conn()
        done = 0
        while limit is None or done < limit:
            size = batch if limit is None else min(batch, limit - done)
            rows = conn.execute(
                "SELECT c.id, c.text FROM memory_chunks c LEFT JOIN chunk_vectors v "
                "ON v.chunk_id = c.id WHERE v.chunk_id IS NULL ORDER BY c.id LIMIT %s",
                (size,),
            ).fetchall()
            if not rows:
                break
            vectors = embedder.embed_passages([str(r[1])[:MAX_PASSAGE_CHARS] for r in rows])
            with txn(conn):
                put(
                    conn,
                    "chunk",
                    [(int(r[0]), v) for r, v in zip(rows, vectors, strict=True)],
                    False,
                )
            done += len(rows)
        return done

    def put_messages(self, vectors: list[tuple[int, np.ndarray]]) -> None:
        conn = self._conn()
        with txn(conn):
            put(conn, "message", vectors, True)
            conn.execute(
                "DELETE FROM search_embed_queue WHERE message_id = ANY(%s)",
                ([i for i, _ in vectors],),
            )

    # -- reading -------------------------------------------------------------

    def deletions(self, kind: Kind) -> str | None:
        return state_get(self._conn(), _TABLES[kind][2])

    def since(self, kind: Kind, after: int) -> list[tuple[int, int, bytes]]:
        table, id_col, _ = _TABLES[kind]
        # Binary results (bytea as its bytes, not hex text to decode) fetched at once:
        # iterating the cursor row by row took 12 s for 1M vectors, most of the
        # first search of a process on such an archive.
        rows = (
            self._conn()
            .execute(
                f"SELECT n, {id_col}, v FROM {table} WHERE n > %s ORDER BY n", (after,), binary=True
            )
            .fetchall()
        )
        return [(int(r[0]), int(r[1]), bytes(r[2])) for r in rows]

    def nearest(self, kind: Kind, query: np.ndarray, k: int) -> list[tuple[int, float]]:
        """(item id, cosine) of the ``k`` nearest stored vectors: pgvector's HNSW
        search (approximate at scale; ``ef_search`` is raised to ``k``)."""
        if k <= 0:
            return []
        table, id_col, _ = _TABLES[kind]
        dims = int(query.size)
        conn = self._conn()
        with txn(conn):
            conn.execute(f"SET LOCAL hnsw.ef_search = {max(40, min(int(k), 1000))}")
            rows = conn.execute(
                f"""SELECT {id_col}, 1 - (e::vector({dims}) <=> %s::vector({dims})) AS cos
                    FROM {table}
                    ORDER BY e::vector({dims}) <=> %s::vector({dims}) LIMIT %s""",
                (literal(query), literal(query), k),
            ).fetchall()
        return [(int(r[0]), float(r[1])) for r in rows]

    def indexed_nearest(
        self, query: np.ndarray, k: int, scope: SearchFilters
    ) -> list[tuple[int, float]] | None:
        """(message id, cosine) of about the ``k`` nearest message vectors in ``scope``,
        best first, from the HNSW index.

        A scope joins the messages and sessions and lets pgvector's iterative
        scan (0.8) go on past ``ef_search`` until ``k`` rows pass the filter,
        so a scope never starves the pool; the relaxed order it yields is
        sorted again here by cosine.
        """
        if k <= 0:
            return []
        dims = int(query.size)
        where, params = scope_sql.messages(scope)
        join = (
            " JOIN messages m ON m.id = v.message_id JOIN sessions s ON s.id = m.session_id"
            if where
            else ""
        )
        near = literal(query)
        conn = self._conn()
        with txn(conn):
            ef = max(40, min(_EF_PER_RESULT * int(k), _EF_MAX))
            conn.execute(f"SET LOCAL hnsw.ef_search = {ef}")
            if where:
                conn.execute("SET LOCAL hnsw.iterative_scan = relaxed_order")
            rows = conn.execute(
                f"""SELECT v.message_id, 1 - (v.e::vector({dims}) <=> %s::vector({dims}))
                    FROM message_vectors v{join} WHERE true {where}
                    ORDER BY v.e::vector({dims}) <=> %s::vector({dims}) LIMIT %s""",
                (near, *params, near, k),
            ).fetchall()
        found = [(int(r[0]), float(r[1])) for r in rows]
        return sorted(found, key=lambda pair: -pair[1])

    @contextmanager
    def bulk_load(self) -> Iterator[None]:
        """Store many vectors without HNSW upkeep: the indexes are dropped here and
        built once at the end (at 300k vectors, insertion into the graph ran at
        ~135 vectors/s; one build is minutes, not hours). Searches meanwhile
        are exact scans: correct, only slower."""
        conn = self._conn()
        with txn(conn):
            drop_hnsw(conn)
        try:
            yield
        finally:
            # Vacuumed before the build (an HNSW index is slow to vacuum).
            vacuum(conn, ("message_vectors", "search_embed_queue"))
            identity = self.stored_identity()
            if identity is not None:
                with txn(conn):
                    hnsw(conn, identity.dims)
