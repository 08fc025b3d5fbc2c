"""Everything Kenning keeps in a database, behind one interface (``storage.base``).

``open_storage(path)`` gives the embedded SQLite backend (``storage.sqlite``);
``BACKENDS`` names the available ones, so a second backend (PostgreSQL) is
one entry here plus its package, and runs the same contract tests
(``tests/storage``). No module outside this package speaks SQL.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from kenning.storage.base import (
    Chunks,
    EmbeddingCache,
    Recalls,
    Sessions,
    Storage,
    StorageConflict,
    StorageError,
    StorageUnavailable,
    TextIndex,
    Vectors,
)


def _sqlite(path: Path, read_only: bool) -> Storage:
    from kenning.storage.sqlite import SqliteStorage

    return SqliteStorage(path, read_only=read_only)


BACKENDS: dict[str, Callable[[Path, bool], Storage]] = {"sqlite": _sqlite}


def open_storage(path: Path, *, backend: str = "sqlite", read_only: bool = False) -> Storage:
    """The storage at ``path`` (opened lazily, on first use)."""
    try:
        make = BACKENDS[backend]
    except KeyError:
        raise StorageError(
            f"unknown storage backend {backend!r}; use one of {sorted(BACKENDS)}"
        ) from None
    return make(path, read_only)


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
    "StorageUnavailable",
    "TextIndex",
    "Vectors",
    "open_embedding_cache",
    "open_storage",
]
