"""Crash-safe file primitives: exclusive locks and atomic replacement.

Invariants the rest of Kenning relies on:
- ``atomic_write`` never leaves a partially written file at ``path``: the new
  bytes go to a temp file in the same directory, are fsynced, and are renamed
  over the target (rename is atomic on POSIX). A crash leaves either the old
  or the new content, plus at most a stray temp file that the next writer
  under the same lock removes.
- ``exclusive_lock`` locks a *separate* ``.lock`` file, never the data file:
  a lock on the data file would be lost by the rename above.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

TEMP_SUFFIX = ".tmp"
# A temp file this old, found by a process that does not hold the lock of its
# target, is debris: an atomic write takes milliseconds.
STALE_TEMP_AGE_S = 60.0


def is_temp_name(name: str) -> bool:
    """Whether ``name`` has the shape of the temp files (and folders) Kenning writes first."""
    return name.startswith(".") and name.endswith(TEMP_SUFFIX) and len(name) > len(TEMP_SUFFIX) + 1


def age_text(seconds: float) -> str:
    """A file's age in words, for messages: "40 s", "12 min", "3 h", "9 days"."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    if seconds < 172_800:
        return f"{seconds / 3600:.0f} h"
    return f"{seconds / 86400:.0f} days"


def lock_path_for(path: Path) -> Path:
    return path.with_name(f".{path.name}.lock")


def _temp_prefix(path: Path) -> str:
    return f".{path.name}."


@contextlib.contextmanager
def exclusive_lock(lock_file: Path) -> Iterator[None]:
    """Hold an exclusive ``flock`` on ``lock_file`` (created if missing).

    The kernel releases the lock when the process dies, so a killed writer
    never leaves the home locked.
    """
    lock_file.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(lock_file, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the flock


class ChangedUnderfootError(RuntimeError):
    """The target changed between our read and our rename (e.g. an editor saved it)."""


@dataclass(frozen=True)
class FileStamp:
    """Enough of ``stat`` to notice that someone else replaced or rewrote a file."""

    inode: int
    size: int
    mtime_ns: int

    @classmethod
    def of(cls, path: Path) -> FileStamp | None:
        try:
            st = path.stat()
        except FileNotFoundError:
            return None
        return cls(st.st_ino, st.st_size, st.st_mtime_ns)


def atomic_write(
    path: Path, data: str | bytes, *, expect: FileStamp | Literal["any"] | None = "any"
) -> None:
    """Replace ``path`` with ``data`` atomically and durably.

    With ``expect``, refuse (ChangedUnderfootError) if the file's stamp is no
    longer what the caller read: editors do not take our lock, so this is the
    last check that we are not about to overwrite a hand edit.
    """
    raw = data.encode("utf-8") if isinstance(data, str) else data
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=_temp_prefix(path), suffix=TEMP_SUFFIX, dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(raw)
            handle.flush()
            os.fsync(handle.fileno())
        if expect != "any" and FileStamp.of(path) != expect:
            raise ChangedUnderfootError(f"{path} changed while it was being rewritten")
        os.replace(tmp_name, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp_name)
        raise
    fsync_dir(path.parent)


def remove_stale_temps(path: Path) -> int:
    """Delete temp files a killed writer of ``path`` left behind.

    Call only while holding the lock for ``path``: then no live writer can own
    a temp file, so every match is debris.
    """
    removed = 0
    for leftover in path.parent.glob(f"{_temp_prefix(path)}*{TEMP_SUFFIX}"):
        with contextlib.suppress(FileNotFoundError):
            leftover.unlink()
            removed += 1
    return removed


def fsync_dir(directory: Path) -> None:
    # Make the rename itself durable; some filesystems refuse O_RDONLY on dirs.
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


@contextlib.contextmanager
def held(path: Path) -> Iterator[None]:
    """Lock the conventional lock file of ``path`` and clean up killed writers' debris."""
    with exclusive_lock(lock_path_for(path)):
        remove_stale_temps(path)
        yield
