"""Everything Kenning keeps in a database, behind one interface (``storage.base``).

``open_storage(path)`` gives the embedded SQLite backend (``storage.sqlite``);
``open_storage(path, url="postgresql://…")`` the shared PostgreSQL one
(``storage.postgres``, needs the ``postgres`` extra). ``BACKENDS`` names the
available ones; each runs the same contract tests (``tests/storage``). No
module outside this package speaks SQL.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from kenning.storage.base import (
    Chunks,
    EmbeddingCache,
    Recalls,
    Sessions,
    Storage,
    StorageConflict,
    StorageError,
    StorageMissing,
    StorageUnavailable,
    TextIndex,
    Vectors,
)


@dataclass(frozen=True)
class Target:
    """Where a home's storage is: its ``state.db`` path, or a server URL and schema."""

    path: Path
    read_only: bool = False
    url: str | None = None
    schema: str | None = None


def _sqlite(target: Target) -> Storage:
    from kenning.storage.sqlite import SqliteStorage

    return SqliteStorage(target.path, read_only=target.read_only)


def _postgres(target: Target) -> Storage:
    if not target.url:
        raise StorageError("the postgres backend needs a URL: set [storage] url")
    try:
        from kenning.storage.postgres import PostgresStorage
        from kenning.storage.postgres.connection import schema_name
    except ImportError as exc:
        raise StorageError(
            f"[storage] url names a PostgreSQL server, but its driver is missing ({exc}); "
            "install it: pip install 'kenning[postgres]'"
        ) from exc
    schema = schema_name(target.schema or default_schema(target.path))
    return PostgresStorage(target.path, target.url, schema, read_only=target.read_only)


BACKENDS: dict[str, Callable[[Target], Storage]] = {"sqlite": _sqlite, "postgres": _postgres}


def default_schema(path: Path) -> str:
    """``kenning_<profile>``: the home's folder name (its profile's) names its schema,
    so every machine's home of one profile shares it and profiles never mix."""
    return "kenning_" + re.sub(r"[^a-z0-9_]", "_", path.parent.name.lower())[:50]


def open_storage(
    path: Path,
    *,
    backend: str | None = None,
    read_only: bool = False,
    url: str | None = None,
    schema: str | None = None,
) -> Storage:
    """The storage of the home whose ``state.db`` is ``path`` (opened lazily, on first
    use): SQLite there, or with ``url`` the PostgreSQL database it names."""
    name = backend or ("postgres" if url else "sqlite")
    try:
        make = BACKENDS[name]
    except KeyError:
        raise StorageError(
            f"unknown storage backend {name!r}; use one of {sorted(BACKENDS)}"
        ) from None
    return make(Target(path, read_only, url, schema))


def open_embedding_cache(path: Path) -> EmbeddingCache:
    """A standalone embedding cache file (the benchmarks'), created on first use."""
    from kenning.storage.sqlite.cache import open_cache

    return open_cache(path)


__all__ = [
    "BACKENDS",
    "Chunks",
    "EmbeddingCache",
    "Recalls",
    "Sessions",
    "Storage",
    "StorageConflict",
    "StorageError",
    "StorageMissing",
    "StorageUnavailable",
    "Target",
    "TextIndex",
    "Vectors",
    "default_schema",
    "open_embedding_cache",
    "open_storage",
]
