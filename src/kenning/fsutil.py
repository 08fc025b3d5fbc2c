"""Crash-safe file primitives: atomic replacement under a lock, capped safe reads.

Invariants the rest of Kenning relies on:
- ``atomic_write`` never leaves a partially written file at ``path``: the new
  bytes go to a temp file in the same directory, are fsynced, and are renamed
  over the target (rename is atomic on POSIX). A crash leaves either the old
  or the new content, plus at most a stray temp file that the next writer
  under the same lock removes.
- writers of a file take turns under ``held(path)``: the file's lock from
  :mod:`kenning.locks` (a *separate* ``.lock`` file, never the data file: a
  lock on the data file would be lost by the rename above).
- ``read_regular`` never follows a symbolic link at the file or at its folder,
  reads only regular files, and never more than its cap; it checks what it
  opened (``fstat`` of the descriptor), so nothing can be swapped in between
  the check and the read.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from kenning.locks import exclusive_lock, lock_path_for

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


def _temp_prefix(path: Path) -> str:
    return f".{path.name}."


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


FileProblem = Literal["link", "not_file", "too_large", "unreadable"]


class UnsafeFileError(Exception):
    """A path Kenning refuses to read; nothing was read from it.

    ``problem`` says which rule it broke; ``detail`` completes the sentence
    "<path> …" (e.g. "is a symbolic link (to /etc/passwd)").
    """

    def __init__(self, path: Path, problem: FileProblem, detail: str) -> None:
        super().__init__(f"{path} {detail}")
        self.path = path
        self.problem: FileProblem = problem
        self.detail = detail


def format_size(size: int) -> str:
    """``812 bytes``, ``256 KiB``, ``52.1 MiB``: sizes as people read them."""
    if size < 1024:
        return f"{size:,} bytes"
    value = float(size)
    for unit in ("KiB", "MiB", "GiB"):
        value /= 1024
        if value < 1024 or unit == "GiB":
            break
    return f"{value:.1f} {unit}".replace(".0 ", " ")


def _what_is(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def _refusal(path: Path, exc: OSError, *, want_dir: bool) -> UnsafeFileError:
    """Explain why opening ``path`` without following links failed."""
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        mode = None
    if mode is not None and stat.S_ISLNK(mode):
        try:
            detail = f"is a symbolic link (to {os.readlink(path)})"
        except OSError:
            detail = "is a symbolic link"
        return UnsafeFileError(path, "link", detail)
    if mode is not None and want_dir and not stat.S_ISDIR(mode):
        return UnsafeFileError(path, "not_file", "is not a folder")
    if mode is not None and not want_dir and not stat.S_ISREG(mode):
        return UnsafeFileError(path, "not_file", f"is {_what_is(mode)}, not a regular file")
    reason = exc.strerror or errno.errorcode.get(exc.errno or 0, str(exc))
    return UnsafeFileError(path, "unreadable", f"cannot be opened ({reason})")


def read_regular(path: Path, *, max_bytes: int) -> tuple[bytes, FileStamp] | None:
    """The bytes of ``path`` and their stamp; None if it (or its folder) does not exist.

    Raises UnsafeFileError, having read nothing, if ``path`` or its folder is
    a symbolic link, ``path`` is not a regular file (a directory, a pipe, a
    device), it is larger than ``max_bytes``, or it cannot be opened. Links are
    refused rather than followed because a file Kenning reads into a prompt
    and rewrites and commits must stay inside the home: following one would
    put its target into the prompt and, on the next write, into history.
    The folder is opened with ``O_NOFOLLOW`` and the file relative to it, so
    a link swapped in after any check is still never followed. The stamp is
    of the descriptor that was read (``O_NONBLOCK`` so a pipe cannot hang
    the open).
    """
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        dir_fd = os.open(path.parent, flags | os.O_DIRECTORY)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise _refusal(path.parent, exc, want_dir=True) from exc
    try:
        try:
            fd = os.open(path.name, flags | os.O_NONBLOCK, dir_fd=dir_fd)
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise _refusal(path, exc, want_dir=False) from exc
        try:
            return _read_capped(path, fd, max_bytes)
        finally:
            os.close(fd)
    finally:
        os.close(dir_fd)


def _read_capped(path: Path, fd: int, max_bytes: int) -> tuple[bytes, FileStamp]:
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        raise UnsafeFileError(path, "not_file", f"is {_what_is(st.st_mode)}, not a regular file")
    cap = format_size(max_bytes)
    if st.st_size > max_bytes:
        detail = f"is {format_size(st.st_size)}, more than the {cap} Kenning reads from it"
        raise UnsafeFileError(path, "too_large", detail)
    chunks: list[bytes] = []
    remaining = max_bytes + 1  # one byte more tells a file that grew past the cap
    while remaining > 0:
        chunk = os.read(fd, min(remaining, 1 << 20))
        if not chunk:
            break
        chunks.append(chunk)
        remaining -= len(chunk)
    data = b"".join(chunks)
    if len(data) > max_bytes:
        detail = f"grew past the {cap} Kenning reads from it while being read"
        raise UnsafeFileError(path, "too_large", detail)
    return data, FileStamp(st.st_ino, st.st_size, st.st_mtime_ns)


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
