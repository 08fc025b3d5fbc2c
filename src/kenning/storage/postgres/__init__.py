"""The shared backend: a PostgreSQL database (psycopg 3), text search and pgvector.

``PostgresStorage`` owns one connection to ``url``: opened lazily, reopened
after a fork (a connection must not cross one: the child leaves the
parent's alone), the home's schema migrated on first open. Its parts share
that connection, so a ``transaction`` spans them, and it takes an advisory
lock first so writers of one home queue up as they do on SQLite.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg

from kenning.storage.base import (
    Chunks,
    EmbeddingCache,
    Recalls,
    Sessions,
    StorageMissing,
    TextIndex,
    Vectors,
)
from kenning.storage.postgres import migrations
from kenning.storage.postgres.connection import Conn, connect, storage_error
from kenning.storage.postgres.index import PostgresIndex
from kenning.storage.postgres.parts import PostgresChunks, PostgresEmbeddingCache, PostgresRecalls
from kenning.storage.postgres.sessions import PostgresSessions
from kenning.storage.postgres.vectors import PostgresVectors

# Connections inherited through a fork: never used again, and never garbage
# collected either (closing one would end the parent's session on the server).
_inherited: list[Conn] = []


class PostgresStorage:
    """The home's schema ``schema`` in the database at ``url``."""

    def __init__(self, path: Path, url: str, schema: str, *, read_only: bool = False) -> None:
        self.path = path
        self.url = url
        self.schema = schema
        self.read_only = read_only
        self._conn: Conn | None = None
        self._pid = -1
        self.sessions: Sessions = PostgresSessions(self.connection)
        self.index: TextIndex = PostgresIndex(self.connection)
        self.vectors: Vectors = PostgresVectors(self.connection)
        self.chunks: Chunks = PostgresChunks(self.connection)
        self.recalls: Recalls = PostgresRecalls(self.connection)
        self.embedding_cache: EmbeddingCache = PostgresEmbeddingCache(self.connection)

    def connection(self) -> Conn:
        """The open connection, for this backend's parts and its own tests only."""
        if self._conn is not None and self._pid != os.getpid():
            _inherited.append(self._conn)
            self._conn = None
        if self._conn is None or self._conn.closed:
            conn = connect(self.url, self.schema)
            try:
                self._prepare(conn)
            except BaseException:
                conn.close()
                raise
            self._conn, self._pid = conn, os.getpid()
        return self._conn

    def _prepare(self, conn: Conn) -> None:
        try:
            if self.read_only:  # nothing created or migrated: an absent archive is an error
                done = migrations.applied(conn)
                migrations.check_known(done, self.schema)
                if len(done) < len(migrations.MIGRATIONS):
                    raise StorageMissing(
                        f"no archive in PostgreSQL schema {self.schema!r} yet (or an older "
                        "one): open it once without --read-only to create or upgrade it"
                    )
                ext = migrations.ensure_vector(conn, create=False)
            else:
                ext = migrations.prepare(conn, self.schema)
            if ext not in (self.schema, "public"):
                conn.execute(f'SET search_path TO "{self.schema}", "{ext}", public')
            if self.read_only:
                conn.execute("SET default_transaction_read_only = on")
        except psycopg.Error as exc:
            raise storage_error(exc) from exc

    @contextmanager
    def transaction(self) -> Iterator[None]:
        conn = self.connection()
        try:
            with conn.transaction():
                # Re-entrant: a nested transaction (a savepoint) takes it again at no cost.
                conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (self.schema,))
                yield
        except psycopg.Error as exc:
            raise storage_error(exc) from exc

    def checkpoint(self) -> None:
        """Nothing to fold: the server holds everything that committed."""

    def settle(self) -> bool:
        """Reads on PostgreSQL are never torn; the connection stays open."""
        return True

    def close(self) -> None:
        if self._conn is not None and self._pid == os.getpid():
            self._conn.close()
        self._conn = None


__all__ = ["PostgresStorage"]
