"""Keeping the search index in step with the archive: FTS rows, vectors, identity.

Triggers (migration m002) queue every new or edited message; this module
drains the queues — ``sync_fts`` writes the FTS row (``body`` = the message,
``ctx`` = the previous message of the session, both with CJK bigrams) and
``embed_pending`` writes one float32 vector per message from the passage
"previous + current". Each batch commits on its own, so an interrupted
indexing run keeps what it finished.

The vectors' identity (embedder name, dims, version, passage recipe) is
recorded in ``search_state``; vectors of another identity are never mixed in:
``check_identity`` reports the mismatch and ``reset_vectors`` clears them so
everything is re-embedded (the embedding cache makes that cheap when the
texts are unchanged).
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import Iterator
from dataclasses import asdict, dataclass

import numpy as np

from kenning.embed.base import Embedder, Progress
from kenning.search.text import cjk_index_text, doc_text, passage_text

# What a message is embedded as (see ``_docs``): the message it replies to, then
# itself. Bumping this re-embeds every archive lazily (``claim_identity``).
PASSAGE_RECIPE = "reply-context v2"
TOOL_CALLS_CHARS = 500  # what an assistant's tool calls add to its searchable text


class IndexIdentityError(RuntimeError):
    """The stored vectors came from another embedder; the message says how to rebuild."""


@dataclass(frozen=True)
class IndexIdentity:
    embedder: str
    dims: int
    passage: str = PASSAGE_RECIPE

    @classmethod
    def of(cls, embedder: Embedder) -> IndexIdentity:
        ident = embedder.identity
        return cls(embedder=ident.key(), dims=ident.dims)

    def describe(self) -> str:
        return f"{self.embedder} ({self.dims} dims, passages {self.passage!r})"


@contextlib.contextmanager
def write_txn(conn: sqlite3.Connection) -> Iterator[None]:
    """BEGIN IMMEDIATE … COMMIT, or nothing extra if a transaction is already open."""
    if conn.in_transaction:
        yield
        return
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def state_get(conn: sqlite3.Connection, key: str) -> str | None:
    row = conn.execute("SELECT value FROM search_state WHERE key = ?", (key,)).fetchone()
    return None if row is None else str(row[0])


def state_set(conn: sqlite3.Connection, key: str, value: str) -> None:
    conn.execute("INSERT OR REPLACE INTO search_state (key, value) VALUES (?, ?)", (key, value))


def stored_identity(conn: sqlite3.Connection) -> IndexIdentity | None:
    raw = state_get(conn, "identity")
    return IndexIdentity(**json.loads(raw)) if raw else None


def _recipe_changed(stored: IndexIdentity | None, current: IndexIdentity) -> bool:
    return (
        stored is not None
        and (stored.embedder, stored.dims) == (current.embedder, current.dims)
        and stored.passage != current.passage
    )


def check_identity(conn: sqlite3.Connection, embedder: Embedder) -> str | None:
    """None when ``embedder`` may use (and add to) the stored vectors, else why not."""
    stored = stored_identity(conn)
    current = IndexIdentity.of(embedder)
    if stored is None or stored == current or _recipe_changed(stored, current):
        return None
    return (
        f"the stored vectors were built with {stored.describe()}, but the configured "
        f"embedder is {current.describe()}; run `kenning index rebuild` to re-embed"
    )


def claim_identity(conn: sqlite3.Connection, embedder: Embedder) -> None:
    """Record ``embedder`` as the vectors' identity, or raise if another one owns them.

    Vectors of the same model made with an older passage recipe are dropped and
    every message is queued again: an upgrade re-embeds as it goes, no command needed.
    """
    if _recipe_changed(stored_identity(conn), IndexIdentity.of(embedder)):
        reset_vectors(conn, embedder)
        return
    problem = check_identity(conn, embedder)
    if problem:
        raise IndexIdentityError(problem)
    if stored_identity(conn) is None:
        with write_txn(conn):
            state_set(conn, "identity", json.dumps(asdict(IndexIdentity.of(embedder))))


def reset_vectors(conn: sqlite3.Connection, embedder: Embedder | None) -> None:
    """Forget every vector and queue every message to be embedded again."""
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


def reset_fts(conn: sqlite3.Connection) -> None:
    with write_txn(conn):
        conn.execute("DELETE FROM message_fts")
        conn.execute("DELETE FROM search_fts_queue")
        conn.execute("INSERT INTO search_fts_queue SELECT id FROM messages WHERE role != 'system'")


_ROWS_WITH_PREVIOUS = """
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


def _content(content: str, tool_calls: str | None) -> str:
    if not tool_calls:
        return content
    return f"{content} {tool_calls[:TOOL_CALLS_CHARS]}".strip()


def _docs(row: sqlite3.Row) -> tuple[str, str | None]:
    """(the message's document, the document of the message it replies to, if any).

    A message is a reply when the one before it has another voice (another
    speaker, or another role): "Yes! It was amazing" needs the question it
    answers. Consecutive messages in one voice are separate statements — a
    list of facts, a user correcting themselves — and each is embedded alone,
    so one never borrows the other's meaning (measured on Letta's fact sets,
    where "prev+current" put the fact *after* the answer first).
    """
    body = doc_text(row["speaker"], row["role"], _content(row["content"], row["tool_calls"]))
    if row["p_role"] is None:
        return body, None
    if (row["p_speaker"] or row["p_role"]) == (row["speaker"] or row["role"]):
        return body, None
    prev = doc_text(
        row["p_speaker"], row["p_role"], _content(row["p_content"], row["p_tool_calls"])
    )
    return body, prev


def pending_counts(conn: sqlite3.Connection) -> tuple[int, int]:
    """(messages waiting for their FTS row, messages waiting for a vector)."""
    fts = conn.execute("SELECT count(*) FROM search_fts_queue").fetchone()[0]
    emb = conn.execute("SELECT count(*) FROM search_embed_queue").fetchone()[0]
    return int(fts), int(emb)


def sync_fts(conn: sqlite3.Connection, *, batch: int = 2000) -> int:
    """Write FTS rows for every queued message; returns how many."""
    done = 0
    while True:
        ids = [
            r[0] for r in conn.execute("SELECT message_id FROM search_fts_queue LIMIT ?", (batch,))
        ]
        if not ids:
            return done
        with write_txn(conn):
            rows = conn.execute(_ROWS_WITH_PREVIOUS, (json.dumps(ids),)).fetchall()
            conn.executemany("DELETE FROM message_fts WHERE rowid = ?", [(r["id"],) for r in rows])
            values = []
            for row in rows:
                body, prev = _docs(row)
                values.append((row["id"], cjk_index_text(body), cjk_index_text(prev or "")))
            conn.executemany("INSERT INTO message_fts (rowid, body, ctx) VALUES (?, ?, ?)", values)
            conn.executemany(
                "DELETE FROM search_fts_queue WHERE message_id = ?", [(i,) for i in ids]
            )
        done += len(ids)


def embed_pending(
    conn: sqlite3.Connection,
    embedder: Embedder,
    *,
    limit: int | None = None,
    batch: int = 64,
    progress: Progress | None = None,
) -> int:
    """Embed queued messages (oldest first, at most ``limit``); returns how many."""
    claim_identity(conn, embedder)
    done = 0
    while limit is None or done < limit:
        size = batch if limit is None else min(batch, limit - done)
        ids = [
            r[0]
            for r in conn.execute(
                "SELECT message_id FROM search_embed_queue ORDER BY message_id LIMIT ?", (size,)
            )
        ]
        if not ids:
            break
        rows = conn.execute(_ROWS_WITH_PREVIOUS, (json.dumps(ids),)).fetchall()
        passages = [passage_text(*_docs(r)) for r in rows]
        vectors = embedder.embed_passages(passages) if passages else np.zeros((0, 1), np.float32)
        with write_txn(conn):
            conn.executemany(
                "DELETE FROM message_vectors WHERE message_id = ?", [(r["id"],) for r in rows]
            )
            conn.executemany(
                "INSERT INTO message_vectors (message_id, v) VALUES (?, ?)",
                [
                    (r["id"], np.ascontiguousarray(v, dtype=np.float32).tobytes())
                    for r, v in zip(rows, vectors, strict=True)
                ],
            )
            conn.executemany(
                "DELETE FROM search_embed_queue WHERE message_id = ?", [(i,) for i in ids]
            )
        done += len(ids)
        if progress is not None:
            progress(len(ids))
    return done


def pending_passages(conn: sqlite3.Connection) -> list[str]:
    """The passage texts ``embed_pending`` would embed now, one per queued message.

    For callers that fill many small archives (benchmarks): embedding every
    archive's passages through a cache in one big batch first is several times
    faster than each archive's own small batches, and stays exact because the
    texts come from the same recipe.
    """
    ids = [r[0] for r in conn.execute("SELECT message_id FROM search_embed_queue ORDER BY 1")]
    if not ids:
        return []
    rows = conn.execute(_ROWS_WITH_PREVIOUS, (json.dumps(ids),)).fetchall()
    return [passage_text(*_docs(r)) for r in rows]


class VectorSet:
    """All vectors of one table in one float32 matrix, refreshed incrementally.

    New rows (higher ``n``) are appended into a growing buffer; a deletion
    anywhere (counted by a trigger) triggers one full reload, which bumps
    ``generation`` (so derived structures know rows moved). ``positions``
    maps item ids to matrix rows (-1 when an item has no vector).
    """

    def __init__(self, table: str, id_col: str, deletes_key: str) -> None:
        self.table, self.id_col, self.deletes_key = table, id_col, deletes_key
        self._buf = np.zeros((0, 0), dtype=np.float32)
        self._ids = np.zeros(0, dtype=np.int64)
        self._size = 0
        self._last_n = 0
        self._deletes: str | None = None
        self._sorted_ids = np.zeros(0, dtype=np.int64)
        self._order = np.zeros(0, dtype=np.int64)
        self.generation = 0

    @property
    def matrix(self) -> np.ndarray:
        return self._buf[: self._size]

    @property
    def ids(self) -> np.ndarray:
        return self._ids[: self._size]

    def __len__(self) -> int:
        return self._size

    def refresh(self, conn: sqlite3.Connection, dims: int) -> None:
        deletes = state_get(conn, self.deletes_key)
        if deletes != self._deletes or (self._size and self._buf.shape[1] != dims):
            self._size, self._last_n, self._deletes = 0, 0, deletes
            self.generation += 1
            self._buf = np.zeros((0, dims), dtype=np.float32)
            self._ids = np.zeros(0, dtype=np.int64)
        rows = conn.execute(
            f"SELECT n, {self.id_col}, v FROM {self.table} WHERE n > ? ORDER BY n",
            (self._last_n,),
        ).fetchall()
        rows = [r for r in rows if len(r[2]) == dims * 4]
        if not rows:
            return
        need = self._size + len(rows)
        if need > len(self._buf) or self._buf.shape[1] != dims:
            cap = max(need, 2 * len(self._buf), 1024)
            buf = np.zeros((cap, dims), dtype=np.float32)
            ids = np.zeros(cap, dtype=np.int64)
            buf[: self._size] = self._buf[: self._size]
            ids[: self._size] = self._ids[: self._size]
            self._buf, self._ids = buf, ids
        block = np.frombuffer(b"".join(r[2] for r in rows), dtype=np.float32)
        self._buf[self._size : need] = block.reshape(len(rows), dims)
        self._ids[self._size : need] = [r[1] for r in rows]
        self._size = need
        self._last_n = int(rows[-1][0])
        self._order = np.argsort(self.ids, kind="stable")
        self._sorted_ids = self.ids[self._order]

    def positions(self, item_ids: np.ndarray) -> np.ndarray:
        if not self._size or not len(item_ids):
            return np.full(len(item_ids), -1, dtype=np.int64)
        p = np.minimum(np.searchsorted(self._sorted_ids, item_ids), self._size - 1)
        found = self._sorted_ids[p] == item_ids
        return np.where(found, self._order[p], -1)
