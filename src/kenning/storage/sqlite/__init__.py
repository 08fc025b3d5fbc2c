"""The embedded backend: one SQLite file (``state.db``) in WAL mode with FTS5.

``SqliteStorage`` owns the connection: opened lazily, reopened after a fork
(idle connections are closed before one, see ``connection``), migrated on
first open. Its parts (sessions, index, vectors, chunks, recalls, the
embedding cache) share that one connection, so a ``transaction`` spans them.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from kenning.storage.base import (
    Chunks,
    EmbeddingCache,
    Recalls,
    Sessions,
    StorageError,
    TextIndex,
    Vectors,
)
from kenning.storage.sqlite.cache import SqliteEmbeddingCache
from kenning.storage.sqlite.chunks import SqliteChunks
from kenning.storage.sqlite.connection import (
    ReadOnlyConnection,
    connect,
    connect_readonly,
    fork_generation,
    storage_error,
    write_txn,
)
from kenning.storage.sqlite.index import SqliteIndex
from kenning.storage.sqlite.recalls import SqliteRecalls
from kenning.storage.sqlite.sessions import SqliteSessions
from kenning.storage.sqlite.vectors import SqliteVectors


class SqliteStorage:
    """``state.db`` at ``path``; ``read_only`` opens it creating and changing no file."""

    def __init__(self, path: Path, *, read_only: bool = False) -> None:
        self.path = path
        self.read_only = read_only
        self._conn: sqlite3.Connection | None = None
        self._opened: ReadOnlyConnection | None = None
        self._generation = -1
        # Typed as the interface, so mypy checks each part implements it.
        self.sessions: Sessions = SqliteSessions(self.connection)
        self.index: TextIndex = SqliteIndex(self.connection)
        self.vectors: Vectors = SqliteVectors(self.connection)
        self.chunks: Chunks = SqliteChunks(self.connection)
        self.recalls: Recalls = SqliteRecalls(self.connection)
        self.embedding_cache: EmbeddingCache = SqliteEmbeddingCache(self.connection)

    def connection(self) -> sqlite3.Connection:
        """The open connection, for this backend's parts and its own tests only."""
        # A fork closes idle connections (see connection.py): reopen after one.
        if self._conn is None or self._generation != fork_generation():
            try:
                if self.read_only:
                    self._opened = connect_readonly(self.path)
                    self._conn = self._opened.conn
                else:
                    self._conn = connect(self.path)
            except sqlite3.Error as exc:
                raise storage_error(exc) from exc
            self._generation = fork_generation()
        return self._conn

    @contextmanager
    def transaction(self) -> Iterator[None]:
        try:
            with write_txn(self.connection()):
                yield
        except sqlite3.Error as exc:
            raise storage_error(exc) from exc

    def checkpoint(self) -> None:
        """Fold the write-ahead log into the database file (its size is then the data's)."""
        try:
            self.connection().execute("PRAGMA wal_checkpoint(TRUNCATE)")
        except sqlite3.Error as exc:
            raise storage_error(exc) from exc

    def settle(self) -> bool:
        """Close the connection after a unit of reads; False if what it read may be
        torn (a read-only view of a file a writer checkpointed meanwhile: read again)."""
        torn = self._conn is not None and self._opened is not None and self._opened.torn()
        self.close()
        self._opened = None
        return not torn

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
        self._conn = None


__all__ = ["SqliteStorage", "StorageError"]
