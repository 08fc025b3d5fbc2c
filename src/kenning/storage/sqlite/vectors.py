"""Vectors in ``state.db``: one float32 blob per message and per memory chunk.

``embed_pending`` drains the queue the triggers fill (migration m002),
embedding the passage "previous + current" of each message; each batch
commits on its own. The vectors' identity (embedder, dims, passage recipe)
lives in ``search_state``; vectors of another identity are never mixed in
(``check_identity``), and ``reset`` clears them so everything is re-embedded
(the embedding cache makes that cheap when the texts are unchanged).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
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
from kenning.storage.query import SearchFilters
from kenning.storage.sqlite.connection import Conn, translate_errors, write_txn
from kenning.storage.sqlite.index import ROWS_WITH_PREVIOUS
from kenning.storage.text import MAX_PASSAGE_CHARS, passage_text

Kind = Literal["message", "chunk"]
# table, id column, the search_state counter a deletion bumps (see m002/m003)
_TABLES = {
    "message": ("message_vectors", "message_id", "vector_deletes"),
    "chunk": ("chunk_vectors", "chunk_id", "chunk_vector_deletes"),
}


def state_get(conn: Conn, key: str) -> str | None:
    row = conn.execute("SELECT value FROM search_state WHERE key = ?", (key,)).fetchone()
    return None if row is None else str(row[0])


def state_set(conn: Conn, key: str, value: str) -> None:
    conn.execute("INSERT OR REPLACE INTO search_state (key, value) VALUES (?, ?)", (key, value))


def _blob(v: np.ndarray) -> bytes:
    return np.ascontiguousarray(v, dtype=np.float32).tobytes()


@translate_errors
class SqliteVectors:
    def __init__(self, conn: Callable[[], Conn]) -> None:
        self._conn = conn

    # -- identity ------------------------------------------------------------

    def stored_identity(self) -> IndexIdentity | None:
        raw = state_get(self._conn(), "identity")
        return IndexIdentity(**json.loads(raw)) if raw else None

    def check_identity(self, embedder: Embedder) -> str | None:
        """None when ``embedder`` may use (and add to) the stored vectors, else why not."""
        return identity_problem(self.stored_identity(), IndexIdentity.of(embedder))

    def claim_identity(self, embedder: Embedder) -> None:
        """Record ``embedder`` as the vectors' identity, or raise if another one owns them.

        Vectors of the same model made with an older passage recipe are dropped and
        every message is queued again: an upgrade re-embeds as it goes, no command needed.
        """
        if recipe_changed(self.stored_identity(), IndexIdentity.of(embedder)):
            self.reset(embedder)
            return
        problem = self.check_identity(embedder)
        if problem:
            raise IndexIdentityError(problem)
        if self.stored_identity() is None:
            conn = self._conn()
            with write_txn(conn):
                state_set(conn, "identity", json.dumps(asdict(IndexIdentity.of(embedder))))

    def reset(self, embedder: Embedder | None) -> None:
        """Forget every vector and queue every message to be embedded again."""
        conn = self._conn()
        with write_txn(conn):
            conn.execute("DELETE FROM message_vectors")
            conn.execute("DELETE FROM chunk_vectors")
            conn.execute("DELETE FROM search_embed_queue")
            conn.execute(
                "INSERT INTO search_embed_queue SELECT id FROM messages WHERE role != 'system'"
            )
            conn.execute("DELETE FROM search_state WHERE key = 'identity'")
            if embedder is not None:
                state_set(conn, "identity", json.dumps(asdict(IndexIdentity.of(embedder))))

    # -- filling -------------------------------------------------------------

    def pending(self) -> int:
        """Messages waiting for a vector."""
        return int(self._conn().execute("SELECT count(*) FROM search_embed_queue").fetchone()[0])

    def pending_chunks(self) -> int:
        row = (
            self._conn()
            .execute(
                "SELECT count(*) FROM memory_chunks c LEFT JOIN chunk_vectors v "
                "ON v.chunk_id = c.id WHERE v.chunk_id IS NULL"
            )
            .fetchone()
        )
        return int(row[0])

    def queued(self) -> list[int]:
        """The ids of the messages waiting for a vector, in order."""
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
        """Embed queued messages (oldest first, at most ``limit``); returns how many."""
        self.claim_identity(embedder)
        conn = self._conn()
        done = 0
        while limit is None or done < limit:
            size = batch if limit is None else min(batch, limit - done)
            ids = [
                r[0]
                for r in conn.execute(
                    "SELECT message_id FROM search_embed_queue ORDER BY message_id LIMIT ?",
                    (size,),
                )
            ]
            if not ids:
                break
            rows = indexable(conn.execute(ROWS_WITH_PREVIOUS, (json.dumps(ids),)).fetchall())
            passages = [passage_text(*message_docs(r)) for r in rows]
            vectors = (
                embedder.embed_passages(passages) if passages else np.zeros((0, 1), np.float32)
            )
            with write_txn(conn):
                conn.executemany(
                    "DELETE FROM message_vectors WHERE message_id = ?", [(r["id"],) for r in rows]
                )
                conn.executemany(
                    "INSERT INTO message_vectors (message_id, v) VALUES (?, ?)",
                    [(r["id"], _blob(v)) for r, v in zip(rows, vectors, strict=True)],
                )
                conn.executemany(
                    "DELETE FROM search_embed_queue WHERE message_id = ?", [(i,) for i in ids]
                )
            done += len(ids)
            if progress is not None:
                progress(len(ids))
        return done

    def pending_passages(self) -> list[str]:
        """The passage texts ``embed_pending`` would embed now, one per queued message.

        For callers that fill many small archives (benchmarks): embedding every
        archive's passages through a cache in one big batch first is several times
        faster than each archive's own small batches, and stays exact because the
        texts come from the same recipe.
        """
        conn = self._conn()
        ids = [r[0] for r in conn.execute("SELECT message_id FROM search_embed_queue ORDER BY 1")]
        if not ids:
            return []
        rows = indexable(conn.execute(ROWS_WITH_PREVIOUS, (json.dumps(ids),)).fetchall())
        return [passage_text(*message_docs(r)) for r in rows]

    def embed_chunks(self, embedder: Embedder, *, limit: int | None = None, batch: int = 32) -> int:
        """Embed chunks that have no vector yet (same identity rules as messages)."""
        self.claim_identity(embedder)
        conn = self._conn()
        done = 0
        while limit is None or done < limit:
            size = batch if limit is None else min(batch, limit - done)
            rows = conn.execute(
                "SELECT c.id, c.text FROM memory_chunks c LEFT JOIN chunk_vectors v "
                "ON v.chunk_id = c.id WHERE v.chunk_id IS NULL ORDER BY c.id LIMIT ?",
                (size,),
            ).fetchall()
            if not rows:
                break
            vectors = embedder.embed_passages([str(r[1])[:MAX_PASSAGE_CHARS] for r in rows])
            with write_txn(conn):
                conn.executemany(
                    "INSERT OR IGNORE INTO chunk_vectors (chunk_id, v) VALUES (?, ?)",
                    [(r[0], _blob(v)) for r, v in zip(rows, vectors, strict=True)],
                )
            done += len(rows)
        return done

    def put_messages(self, vectors: list[tuple[int, np.ndarray]]) -> None:
        """Store precomputed vectors for queued messages and take them off the queue
        (benchmarks that build vectors themselves; the caller owns the identity)."""
        conn = self._conn()
        with write_txn(conn):
            conn.executemany(
                "INSERT OR REPLACE INTO message_vectors (message_id, v) VALUES (?, ?)",
                [(i, _blob(v)) for i, v in vectors],
            )
            conn.executemany(
                "DELETE FROM search_embed_queue WHERE message_id = ?", [(i,) for i, _ in vectors]
            )

    # -- reading -------------------------------------------------------------

    def deletions(self, kind: Kind) -> str | None:
        """A marker that changes whenever a vector of ``kind`` is deleted."""
        return state_get(self._conn(), _TABLES[kind][2])

    def since(self, kind: Kind, after: int) -> list[tuple[int, int, bytes]]:
        """(load order, item id, float32 blob) of every vector stored after ``after``."""
        table, id_col, _ = _TABLES[kind]
        rows = self._conn().execute(
            f"SELECT n, {id_col}, v FROM {table} WHERE n > ? ORDER BY n", (after,)
        )
        return [(int(r[0]), int(r[1]), bytes(r[2])) for r in rows]

    def nearest(self, kind: Kind, query: np.ndarray, k: int) -> list[tuple[int, float]]:
        """(item id, cosine) of the ``k`` stored vectors nearest ``query``, exactly.

        The engine scores its in-memory matrix instead (see ``search.index.VectorSet``);
        this is the plain lookup for everything else.
        """
        rows = [r for r in self.since(kind, 0) if len(r[2]) == query.size * 4]
        if not rows or k <= 0:
            return []
        matrix = np.frombuffer(b"".join(r[2] for r in rows), np.float32).reshape(len(rows), -1)
        cos = matrix @ np.asarray(query, np.float32)
        best = np.argsort(-cos, kind="stable")[:k]
        return [(rows[i][1], float(cos[i])) for i in best.tolist()]

    def indexed_nearest(
        self, query: np.ndarray, k: int, scope: SearchFilters
    ) -> list[tuple[int, float]] | None:
        """None: SQLite keeps no vector index; the engine's prefilter serves big archives."""
        return None

    @contextmanager
    def bulk_load(self) -> Iterator[None]:
        """Nothing to suspend: SQLite keeps no vector index."""
        yield
