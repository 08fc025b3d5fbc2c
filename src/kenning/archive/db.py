"""Opening ``state.db``: WAL, foreign keys, a busy timeout, and migrations.

Every connection Kenning opens goes through ``connect`` so the pragmas are
never forgotten. WAL lets any number of readers work while one process
writes; ``busy_timeout`` makes a second writer wait for the lock instead of
failing at once, which is what two agents sharing a home need.
"""

from __future__ import annotations

import os
import sqlite3
import weakref
from pathlib import Path

from kenning.archive import migrations

# Long enough to ride out another process's batch import, short enough that
# a wedged writer is reported rather than hanging an agent forever.
BUSY_TIMEOUT_MS = 30_000


class ArchiveError(RuntimeError):
    """The archive cannot be used; the message says why and what to do."""


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


def connect(path: Path, *, migrate: bool = True, readonly: bool = False) -> sqlite3.Connection:
    if readonly:
        if not path.exists():
            raise ArchiveError(f"no archive at {path} yet")
        conn = sqlite3.connect(
            f"file:{path}?mode=ro", uri=True, check_same_thread=False, factory=_Connection
        )
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(
            path, check_same_thread=False, isolation_level=None, factory=_Connection
        )
    _open_connections.add(conn)
    conn.row_factory = sqlite3.Row
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    conn.execute("PRAGMA foreign_keys = ON")
    if not readonly:
        mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        if mode.lower() != "wal":
            raise ArchiveError(f"{path}: could not switch to WAL mode (got {mode!r})")
        # NORMAL is durable across application crashes in WAL mode; only an OS
        # crash can lose the last transactions, never corrupt the database.
        conn.execute("PRAGMA synchronous = NORMAL")
        if migrate:
            migrations.apply(conn)
    return conn
