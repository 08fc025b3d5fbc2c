"""A content-addressed embedding cache wrapped around any embedder.

Vectors are stored in a SQLite table ``embed_cache(identity, kind, hash, v)``
keyed by the embedder identity, "q"/"p" (query or passage) and sha256 of the
exact text, so re-imports, index rebuilds and benchmark re-runs never embed
the same text twice. The cache never changes what an embedder returns: a hit
is the bytes the same embedder produced before. The table lives in
``state.db`` (created by migration m002) or in a standalone file opened with
``open_cache_db`` (the benchmark's cache in the user cache directory).
"""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from kenning.embed.base import Calibration, Embedder, EmbedderIdentity, Vectors

CACHE_DDL = """CREATE TABLE IF NOT EXISTS embed_cache (
    identity TEXT NOT NULL,
    kind     TEXT NOT NULL,
    hash     BLOB NOT NULL,
    v        BLOB NOT NULL,
    PRIMARY KEY (identity, kind, hash)
) WITHOUT ROWID"""


def open_cache_db(path: Path) -> sqlite3.Connection:
    """A standalone cache database (WAL, created on first use)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
    conn.execute("PRAGMA busy_timeout = 30000")
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")
    conn.execute(CACHE_DDL)
    return conn


def text_hash(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8")).digest()


class CachedEmbedder:
    """``inner`` with a persistent cache; same identity and floor as ``inner``."""

    def __init__(
        self, inner: Embedder, conn: sqlite3.Connection | Callable[[], sqlite3.Connection]
    ) -> None:
        """``conn`` may be a function, so a fork-safe owner (``Archive``) can reopen it."""
        self.inner = inner
        self._conn = conn
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    @property
    def conn(self) -> sqlite3.Connection:
        # sqlite3.Connection is itself callable, so test for it, not for callable().
        return self._conn if isinstance(self._conn, sqlite3.Connection) else self._conn()

    @property
    def identity(self) -> EmbedderIdentity:
        return self.inner.identity

    @property
    def relevance_floor(self) -> float | None:
        return self.inner.relevance_floor

    @property
    def abstention(self) -> Calibration | None:
        return self.inner.abstention

    def embed_passages(self, texts: Sequence[str]) -> Vectors:
        return self._get(texts, "p")

    def embed_query(self, text: str) -> Vectors:
        vector: Vectors = self._get([text], "q")[0]
        return vector

    def embed_queries(self, texts: Sequence[str]) -> Vectors:
        """Warm the cache for many queries at once (batched like passages)."""
        return self._get(texts, "q")

    def _get(self, texts: Sequence[str], kind: str) -> Vectors:
        identity = self.inner.identity
        key = identity.key()
        hashes = [text_hash(t) for t in texts]
        found: dict[bytes, Vectors] = {}
        unique = list(dict.fromkeys(hashes))
        with self._lock:
            for start in range(0, len(unique), 500):
                part = unique[start : start + 500]
                marks = ",".join("?" * len(part))
                rows = self.conn.execute(
                    f"SELECT hash, v FROM embed_cache WHERE identity = ? AND kind = ? "
                    f"AND hash IN ({marks})",
                    (key, kind, *part),
                ).fetchall()
                for h, blob in rows:
                    found[bytes(h)] = np.frombuffer(blob, dtype=np.float32)
        missing = {h: t for h, t in zip(hashes, texts, strict=True) if h not in found}
        self.hits += len(texts) - len(missing)
        self.misses += len(missing)
        if missing:
            todo = list(missing.items())
            batch_queries = getattr(self.inner, "embed_queries", None)
            if kind == "q" and batch_queries is not None and len(todo) > 1:
                new = batch_queries([t for _, t in todo])
            elif kind == "q":
                new = np.vstack([self.inner.embed_query(t)[None, :] for _, t in todo])
            else:
                new = self.inner.embed_passages([t for _, t in todo])
            with self._lock:
                self.conn.execute("BEGIN IMMEDIATE")
                try:
                    self.conn.executemany(
                        "INSERT OR REPLACE INTO embed_cache (identity, kind, hash, v) "
                        "VALUES (?, ?, ?, ?)",
                        [
                            (key, kind, h, np.ascontiguousarray(v, np.float32).tobytes())
                            for (h, _), v in zip(todo, new, strict=True)
                        ],
                    )
                    self.conn.execute("COMMIT")
                except BaseException:
                    self.conn.execute("ROLLBACK")
                    raise
            for (h, _), v in zip(todo, new, strict=True):
                found[h] = v
        out = np.zeros((len(texts), identity.dims), dtype=np.float32)
        for i, h in enumerate(hashes):
            out[i] = found[h]
        return out
