"""Non-blocking "only one of us" locks: one scheduler per home, one review per session.

``fsutil.exclusive_lock`` waits; here a second holder is turned away at once
(``Busy``), which is what "another daemon already runs this home" needs. The
lock is an ``flock`` on a separate lock file, so the kernel releases it when
the holder dies: a killed daemon never leaves the home locked. The holder's
pid is written into the file so the refusal can name it.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path


class Busy(RuntimeError):
    """Someone else holds the lock; ``holder`` is their pid when known."""

    def __init__(self, path: Path, holder: int | None) -> None:
        self.path = path
        self.holder = holder
        who = f" (pid {holder})" if holder else ""
        super().__init__(f"{path.name} is held by another process{who}")


def holder_of(path: Path) -> int | None:
    try:
        text = path.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return int(text) if text.isdigit() else None


@contextlib.contextmanager
def try_lock(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``path`` or raise ``Busy`` without waiting."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise Busy(path, holder_of(path)) from None
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode("ascii"))
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the flock


def locks_dir(home_root: Path) -> Path:
    """Where these lock files live: under cache/, which history ignores."""
    return home_root / "cache" / "locks"
