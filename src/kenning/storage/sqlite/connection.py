"""Opening ``state.db``: WAL, foreign keys, a busy timeout, and migrations.

Every connection Kenning opens goes through ``connect`` so the pragmas are
never forgotten. WAL lets any number of readers work while one process
writes; ``busy_timeout`` makes a second writer wait for the lock instead of
failing at once, which is what two agents sharing a home need.
"""

from __future__ import annotations

import contextlib
import functools
import os
import sqlite3
import weakref
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from kenning.fsutil import FileStamp
from kenning.storage.base import StorageConflict, StorageError, StorageMissing, StorageUnavailable
from kenning.storage.sqlite import migrations

Conn = sqlite3.Connection

# Long enough to ride out another process's batch import, short enough that
# a wedged writer is reported rather than hanging an agent forever.
BUSY_TIMEOUT_MS = 30_000


# SQLite connections must not cross fork(). A child that merely *opens* the
# same database while an inherited connection exists shares SQLite's
# in-process lock bookkeeping with it — bookkeeping that describes the
# parent's POSIX locks, which the child does not hold — and two writers then
# interleave (measured: lost sessions and messages). So every connection that
# is idle is closed just before a fork, and users of a connection check
# ``fork_generation`` to reopen lazily. A connection inside a transaction at
# that moment (another thread mid-write) is left alone rather than broken.
class _Connection(sqlite3.Connection):
    """A plain connection that can be weakly referenced (the base class cannot)."""


_open_connections: weakref.WeakSet[_Connection] = weakref.WeakSet()
_fork_generation = 0


def fork_generation() -> int:
    """Changes whenever idle connections were closed for a fork; reopen if it changed."""
    return _fork_generation


def _close_idle_connections_before_fork() -> None:
    global _fork_generation
    _fork_generation += 1
    for conn in list(_open_connections):
        if not conn.in_transaction:
            conn.close()
            _open_connections.discard(conn)


os.register_at_fork(before=_close_idle_connections_before_fork)


def connect(path: Path, *, migrate: bool = True) -> sqlite3.Connection:
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path, check_same_thread=False, isolation_level=None, factory=_Connection)
    _open_connections.add(conn)
    _configure(conn)
    mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
    if mode.lower() != "wal":
        raise StorageError(f"{path}: could not switch to WAL mode (got {mode!r})")
    # NORMAL is durable across application crashes in WAL mode; only an OS
    # crash can lose the last transactions, never corrupt the database.
    conn.execute("PRAGMA synchronous = NORMAL")
    if migrate:
        migrations.apply(conn)
    return conn


def _configure(conn: sqlite3.Connection) -> None:
    conn.row_factory = sqlite3.Row
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    conn.execute("PRAGMA foreign_keys = ON")


# Reading a WAL database without creating or changing a single file.
#
# ``mode=ro`` alone is not enough: SQLite then creates ``-wal`` and ``-shm``
# (it needs the shared-memory index to read a WAL database) and, being
# read-only, cannot delete them again. So the way to open depends on what
# is there:
#
# - ``-wal`` and ``-shm`` exist (a writer is connected, or one died): open
#   with ``readonly_shm=1``. SQLite maps the ``-shm`` read-only (rebuilding
#   the index in private memory if it cannot trust it) and reads the
#   committed transactions in the ``-wal``: the latest data, files untouched.
#   (Should the last writer close and delete both between this check and the
#   first read, SQLite leaves an empty ``-wal`` and that call fails; harmless
#   to the data, and the next call opens immutable.)
# - no ``-wal`` (or an empty one without ``-shm``): no connection is open and
#   the database file holds everything. ``readonly_shm`` would create the
#   ``-wal`` here, so the file is opened ``immutable=1``: no locks, no side
#   files. Immutable promises SQLite nobody writes, which a writer starting
#   meanwhile would break, but a writer changes the database file itself
#   only when it checkpoints: ``ReadOnlyConnection.torn`` notices that (the
#   file's stamp changed since opening) so the caller can read again.
# - a ``-wal`` with transactions but no ``-shm`` (a crashed writer, then the
#   ``-shm`` deleted by hand): they cannot be read without creating the
#   ``-shm``, so this is refused with what to do, rather than answered stale.


@dataclass(frozen=True)
class ReadOnlyConnection:
    conn: sqlite3.Connection
    path: Path
    opened: FileStamp | None  # the database file at opening, when opened immutable

    def torn(self) -> bool:
        """Whether an immutable read may have seen the file change under it (read again)."""
        return self.opened is not None and FileStamp.of(self.path) != self.opened


def connect_readonly(path: Path) -> ReadOnlyConnection:
    """``path`` opened for reading only, creating and changing no file (see above)."""
    if not path.exists():
        raise StorageMissing(f"no archive at {path} yet")
    wal, shm = (path.with_name(f"{path.name}-{suffix}") for suffix in ("wal", "shm"))
    wal_size = wal.stat().st_size if wal.exists() else None
    opened = None
    if wal_size is not None and shm.exists():
        query = "mode=ro&readonly_shm=1"
    elif not wal_size:
        opened = FileStamp.of(path)  # before opening: a change from here on is noticed
        query = "immutable=1"
    else:
        raise StorageError(
            f"{path.name} has recent changes in {wal.name} that cannot be read without "
            f"creating {shm.name}, and this server may not create files (--read-only). "
            "Run any kenning command that reads the archive once (e.g. `kenning sessions "
            "list`) to fold them in, or serve without --read-only."
        )
    conn = sqlite3.connect(
        f"{path.absolute().as_uri()}?{query}",
        uri=True,
        check_same_thread=False,
        factory=_Connection,
    )
    _open_connections.add(conn)
    _configure(conn)
    return ReadOnlyConnection(conn, path, opened)


@contextlib.contextmanager
def write_txn(conn: sqlite3.Connection) -> Iterator[None]:
    """BEGIN IMMEDIATE … COMMIT, or nothing extra if a transaction is already open.

    IMMEDIATE takes the write lock first, so what is read inside is still
    true when it is written (two importers cannot both pass a key check).
    """
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


def storage_error(exc: sqlite3.Error) -> StorageError:
    """The backend-neutral error for ``exc`` (its message kept, ``exc`` chained)."""
    if isinstance(exc, sqlite3.IntegrityError):
        return StorageConflict(str(exc))
    if isinstance(exc, sqlite3.OperationalError):
        return StorageUnavailable(str(exc))
    return StorageError(str(exc))


_F = TypeVar("_F", bound=Callable[..., Any])
_T = TypeVar("_T", bound=type)


def _translating(fn: _F) -> _F:
    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except sqlite3.Error as exc:
            raise storage_error(exc) from exc

    return call  # type: ignore[return-value]


def translate_errors(cls: _T) -> _T:
    """Callers of a storage class see ``StorageError``s, never ``sqlite3`` ones."""
    for name, value in list(vars(cls).items()):
        if not name.startswith("_") and callable(value):
            setattr(cls, name, _translating(value))
    return cls
