"""Kenning's file locks: one primitive, waiting or not, that names its holder.

Every lock is an exclusive ``flock`` on a *separate* lock file, never on the
data file (``atomic_write`` renames over the data file, which would drop a
lock held on it). The kernel releases a flock when its holder dies, so a
killed writer or daemon never leaves the home locked.

- :func:`exclusive_lock` waits its turn: writers of one file take turns.
- :func:`try_lock` turns a second holder away at once with :class:`Busy`:
  "another daemon already runs this home", "this session is being reviewed".
- Whoever holds a lock writes its pid into the lock file, so a refusal and
  ``kenning doctor`` can say which process has it (:func:`holder_of`,
  :func:`is_held`).

Git's own ``index.lock`` files are a different thing (O_EXCL files that git
creates and renames, no flock); :mod:`kenning.gitlocks` inspects those.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path

__all__ = [
    "Busy",
    "exclusive_lock",
    "holder_of",
    "is_held",
    "lock_path_for",
    "locks_dir",
    "try_lock",
]


class Busy(RuntimeError):
    """Someone else holds the lock; ``holder`` is their pid when known."""

    def __init__(self, path: Path, holder: int | None) -> None:
        self.path = path
        self.holder = holder
        who = f" (pid {holder})" if holder else ""
        super().__init__(f"{path.name} is held by another process{who}")


def lock_path_for(path: Path) -> Path:
    """The conventional lock file of a data file: ``.NAME.lock`` beside it."""
    return path.with_name(f".{path.name}.lock")


def locks_dir(home_root: Path) -> Path:
    """Where process-wide locks (daemon, cron jobs, reviews) live: cache/, which history ignores."""
    return home_root / "cache" / "locks"


def holder_of(lock_file: Path) -> int | None:
    """The pid the last holder wrote into ``lock_file`` (None when unknown)."""
    try:
        text = lock_file.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return int(text) if text.isdigit() else None


@contextlib.contextmanager
def exclusive_lock(lock_file: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``lock_file`` (created if missing), waiting for it."""
    with _locked(lock_file, wait=True):
        yield


@contextlib.contextmanager
def try_lock(lock_file: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``lock_file`` or raise :class:`Busy` without waiting."""
    with _locked(lock_file, wait=False):
        yield


def is_held(lock_file: Path) -> bool:
    """Whether another process holds the lock on ``lock_file`` (opened read-only: no write)."""
    try:
        fd = os.open(lock_file, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    except OSError:
        return False
    finally:
        os.close(fd)  # closing the descriptor releases the flock we may have taken
    return False


@contextlib.contextmanager
def _locked(lock_file: Path, *, wait: bool) -> Iterator[None]:
    lock_file.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(lock_file, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise Busy(lock_file, holder_of(lock_file)) from None
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode("ascii"))
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the flock
