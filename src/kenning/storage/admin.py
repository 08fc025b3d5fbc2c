"""Looking after a home's storage: what it holds (``status``) and moving it (``copy_archive``).

``copy_archive`` copies a SQLite archive into PostgreSQL losslessly: every
session, message, memory chunk, vector, recall and cached embedding, with
their ids. Each batch commits on its own and every insert skips rows already
there, so a copy that was killed resumes where it stopped and running it
again changes nothing. The full-text index is rebuilt on the target by its
own rules (deterministic from the messages). ``checksums`` reads every
copied table in key order on either backend; equal sums mean equal rows.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from kenning.storage.base import Storage, StorageError

# table -> (columns compared and copied, key order). search_state is compared
# on the keys that carry meaning across backends (counters are local).
TABLES: dict[str, tuple[tuple[str, ...], str]] = {
    "sessions": (
        ("id", "source", "parent_id", "title", "workspace", "user_id", "started_at", "ended_at",
         "end_reason", "model", "input_tokens", "output_tokens", "import_key", "meta"),
        "id",
    ),
    "messages": (
        ("id", "session_id", "seq", "role", "speaker", "content", "tool_calls", "tool_name",
         "tool_call_id", "created_at", "input_tokens", "output_tokens", "active", "compacted",
         "meta"),
        "id",
    ),
    "memory_files": (("path", "size", "mtime_ns", "hash", "decays", "dated_at"), "path"),
    "memory_chunks": (("id", "path", "line_start", "line_end", "hash", "text"), "id"),
    "message_vectors": (("message_id", "v"), "message_id"),
    "chunk_vectors": (("chunk_id", "v"), "chunk_id"),
    "recalls": (("id", "query", "at", "mode", "filters"), "id"),
    "recall_hits": (("recall_id", "rank", "kind", "item_id", "score"), "recall_id, rank"),
    "embed_cache": (("identity", "kind", "hash", "v"), "identity, kind, hash"),
}  # fmt: skip
STATE_KEYS = ("identity", "chunking")
COUNTS = {
    "sessions": "SELECT count(*) FROM sessions",
    "messages": "SELECT count(*) FROM messages",
    "indexed_messages": "SELECT count(*) FROM message_fts",
    "index_pending": "SELECT count(*) FROM search_fts_queue",
    "message_vectors": "SELECT count(*) FROM message_vectors",
    "vectors_pending": "SELECT count(*) FROM search_embed_queue",
    "memory_files": "SELECT count(*) FROM memory_files",
    "memory_chunks": "SELECT count(*) FROM memory_chunks",
    "chunk_vectors": "SELECT count(*) FROM chunk_vectors",
    "recalls": "SELECT count(*) FROM recalls",
    "embedding_cache": "SELECT count(*) FROM embed_cache",
}
BATCH = 1000


def _conn(storage: Storage) -> Any:
    connection = getattr(storage, "connection", None)
    if connection is None:
        raise StorageError(f"{type(storage).__name__} cannot be inspected")
    return connection()


def _is_postgres(storage: Storage) -> bool:
    return type(storage).__name__ == "PostgresStorage"


def status(storage: Storage) -> dict[str, Any]:
    """Backend, location, schema version, row counts and index state, as plain values."""
    conn = _conn(storage)
    done = [str(r[0]) for r in conn.execute("SELECT name FROM _migrations ORDER BY name")]
    identity = storage.vectors.stored_identity()
    out: dict[str, Any] = {
        "schema_version": len(done),
        "migrations": done,
        "counts": {name: int(conn.execute(sql).fetchone()[0]) for name, sql in COUNTS.items()},
        "vectors_identity": None if identity is None else identity.describe(),
    }
    if _is_postgres(storage):
        from kenning.storage.postgres import migrations
        from kenning.storage.postgres.connection import redacted

        row = conn.execute(
            "SELECT current_setting('server_version'), "
            "(SELECT extversion FROM pg_extension WHERE extname = 'vector')"
        ).fetchone()
        hnsw = conn.execute(
            "SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() "
            "AND indexname LIKE %s ORDER BY 1",
            ("%\\_hnsw\\_%",),
        ).fetchall()
        out = {
            "backend": "postgres",
            "url": redacted(getattr(storage, "url", "")),
            "schema": getattr(storage, "schema", ""),
            "server_version": row[0],
            "pgvector": row[1],
            "vector_indexes": [str(r[0]) for r in hnsw],
            "schema_latest": len(migrations.MIGRATIONS),
            **out,
        }
    else:
        from kenning.storage.sqlite import migrations as sqlite_migrations

        out = {
            "backend": "sqlite",
            "path": str(storage.path),
            "schema_latest": len(sqlite_migrations.MIGRATIONS),
            **out,
        }
    return out


def location(storage: Storage) -> str:
    """Where ``storage`` is, for people: its file, or its server (no password) and schema."""
    if _is_postgres(storage):
        from kenning.storage.postgres.connection import redacted

        return f"{redacted(getattr(storage, 'url', ''))} schema {getattr(storage, 'schema', '')}"
    return str(storage.path)


def row_counts(storage: Storage) -> dict[str, int]:
    """Rows of each copied table."""
    conn = _conn(storage)
    return {t: int(conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0]) for t in TABLES}


def _canonical(value: Any) -> bytes:
    if value is None:
        return b"\\N"
    if isinstance(value, bytes | bytearray | memoryview):
        return b"x" + bytes(value).hex().encode()
    if isinstance(value, float):
        return repr(value).encode()
    if isinstance(value, bool):
        return str(int(value)).encode()
    return str(value).encode("utf-8", "surrogatepass")


def _rows(storage: Storage, table: str) -> Iterator[tuple[Any, ...]]:
    columns, order = TABLES[table]
    yield from _conn(storage).execute(f"SELECT {', '.join(columns)} FROM {table} ORDER BY {order}")


def checksums(storage: Storage) -> dict[str, tuple[int, str]]:
    """table -> (rows, sha256 of the rows in key order): equal on two backends iff equal rows."""
    out = {}
    for table in [*TABLES, "search_state"]:
        digest = hashlib.sha256()
        count = 0
        if table == "search_state":
            rows: Any = _conn(storage).execute("SELECT key, value FROM search_state ORDER BY key")
            rows = [r for r in rows if r[0] in STATE_KEYS]
        else:
            rows = _rows(storage, table)
        for row in rows:
            digest.update(b"\x1f".join(_canonical(v) for v in row) + b"\x1e")
            count += 1
        out[table] = (count, digest.hexdigest())
    return out


@dataclass
class CopyReport:
    copied: dict[str, int]  # rows newly written per table
    indexed: int  # messages whose full-text row was built on the target
    source: dict[str, tuple[int, str]]
    target: dict[str, tuple[int, str]]

    @property
    def identical(self) -> bool:
        return self.source == self.target


Progress = Callable[[str, int], None]


def copy_archive(source: Storage, target: Storage, progress: Progress | None = None) -> CopyReport:
    """Copy ``source`` (SQLite) into ``target`` (PostgreSQL); see the module doc."""
    if _is_postgres(source) or not _is_postgres(target):
        raise StorageError("copying goes from a SQLite archive to a PostgreSQL one")
    from kenning.storage.postgres import copy as pg_copy

    src = _conn(source)
    copied: dict[str, int] = {}
    for table in TABLES:
        columns, order = TABLES[table]
        total = 0
        cursor = src.execute(f"SELECT {', '.join(columns)} FROM {table} ORDER BY {order}")
        while batch := cursor.fetchmany(BATCH):
            total += pg_copy.insert(_conn(target), table, columns, [tuple(r) for r in batch])
            if progress is not None:
                progress(table, len(batch))
        copied[table] = total
    state = {str(k): str(v) for k, v in src.execute("SELECT key, value FROM search_state")}
    parents = [
        (str(r[0]), str(r[1]))
        for r in src.execute("SELECT id, parent_id FROM sessions WHERE parent_id IS NOT NULL")
    ]
    pg_copy.finish(_conn(target), {k: v for k, v in state.items() if k in STATE_KEYS}, parents)
    indexed = target.index.sync()
    return CopyReport(copied, indexed, checksums(source), checksums(target))


def size_bytes(storage: Storage) -> int:
    """What ``storage`` takes on disk: its ``state.db`` files, or its schema's tables
    with their indexes and TOAST on the server."""
    if _is_postgres(storage):
        row = (
            _conn(storage)
            .execute(
                "SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class c "
                "JOIN pg_namespace n ON n.oid = c.relnamespace "
                "WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'm')"
            )
            .fetchone()
        )
        return int(row[0])
    storage.checkpoint()
    path = storage.path
    return sum(p.stat().st_size for p in path.parent.glob(path.name + "*") if p.is_file())


def drop_postgres_schema(storage: Storage) -> None:
    """Drop ``storage``'s whole schema (a benchmark's scratch archive) and close it."""
    if not _is_postgres(storage):
        raise StorageError("only a PostgreSQL archive lives in a schema of its own")
    conn = _conn(storage)
    conn.execute(f'DROP SCHEMA IF EXISTS "{getattr(storage, "schema", "")}" CASCADE')
    storage.close()
