"""Git's own lock files in the home: a killed git's leftovers versus a running git's.

Git guards the index and every ref with ``<file>.lock``, created with O_EXCL
and renamed over the file when the update is done. A git killed in between
(say, together with the Kenning process that ran it) leaves the lock behind,
and every later git that needs the same file fails with "Unable to create
'….lock': File exists" until someone deletes it. Deleting a lock that a
*running* git owns is not safe: that git would then rename its half-made
update over whatever the next one wrote.

A lock counts as stale, and :func:`remove_stale` deletes it, only when:

- the caller holds Kenning's home lock (``.git-kenning.lock``): Kenning runs
  every git that writes under that lock, so no git Kenning started is alive;
- no live process named ``git…`` has its working directory inside the home
  or any file of the repository open (read from ``/proc``: git changes into
  the top of the work tree before it takes a lock, so this finds a user's
  ``git commit`` waiting for its editor, or a ``git status`` refreshing the
  index);
- it is at least :data:`MIN_AGE_S` old, which also covers a git that the
  process scan cannot see (another user's, another PID namespace's) as long
  as it is quick.

Where ``/proc`` cannot be read (not Linux), no process can be ruled out, and
only a lock older than :data:`UNVERIFIED_AGE_S` counts as stale.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from pathlib import Path

from kenning import clock
from kenning.fsutil import age_text

MIN_AGE_S = 5.0
UNVERIFIED_AGE_S = 3600.0
_PROC = Path("/proc")


@dataclass(frozen=True)
class GitLock:
    """One git lock file found in the home, with the evidence about its owner."""

    path: Path
    age_s: float
    holders: tuple[int, ...]  # live git processes working in this repository
    checked: bool  # False when processes could not be inspected (no /proc)

    @property
    def stale(self) -> bool:
        if self.holders:
            return False
        return self.age_s >= (MIN_AGE_S if self.checked else UNVERIFIED_AGE_S)

    def describe(self, root: Path) -> str:
        rel = _relative(self.path, root)
        if self.holders:
            pids = ", ".join(str(pid) for pid in self.holders)
            return f"{rel} belongs to a running git (pid {pids})"
        age = age_text(self.age_s)
        if self.stale:
            return f"{rel} was left by a git that is no longer running ({age} old)"
        if not self.checked:
            return f"{rel} is {age} old; running processes cannot be inspected here"
        return f"{rel} was created {age} ago and may belong to a git that is still working"


def lock_files(root: Path) -> list[Path]:
    """The ``*.lock`` files git keeps in ``root/.git`` (index, HEAD, config, refs)."""
    git_dir = root / ".git"
    found = sorted(git_dir.glob("*.lock"))
    refs = git_dir / "refs"
    if refs.is_dir():
        found += sorted(p for p in refs.rglob("*.lock") if p.is_file())
    return found


def inspect(root: Path) -> list[GitLock]:
    """Every git lock file in ``root`` with its age and the processes that may own it."""
    paths = lock_files(root)
    if not paths:
        return []  # the common case: no /proc scan at all
    holders = git_processes_in(root)
    now = clock.system_timestamp()  # compared with file mtimes, which are system time
    out = []
    for path in paths:
        try:
            mtime = path.stat().st_mtime
        except FileNotFoundError:
            continue  # its git just finished
        pids = () if holders is None else tuple(holders)
        out.append(GitLock(path, max(0.0, now - mtime), pids, holders is not None))
    return out


def remove_stale(root: Path) -> list[GitLock]:
    """Delete the stale git locks in ``root``; returns those removed.

    Call only while holding Kenning's home lock (see the module docstring).
    """
    removed = []
    for lock in inspect(root):
        if lock.stale:
            with contextlib.suppress(FileNotFoundError):
                lock.path.unlink()
                removed.append(lock)
    return removed


def git_processes_in(root: Path) -> list[int] | None:
    """Pids of live git processes working in ``root``; None if processes cannot be read."""
    if not (_PROC / "self" / "cwd").exists():
        return None
    top = os.path.realpath(root)
    inside = (top, top + os.sep)
    found = []
    me = os.getpid()
    for entry in _PROC.iterdir():
        if not entry.name.isdigit() or int(entry.name) == me:
            continue
        try:
            if not (entry / "comm").read_text(encoding="utf-8", errors="replace").startswith("git"):
                continue
            if _is_inside(os.readlink(entry / "cwd"), inside) or _has_open_file(entry, inside):
                found.append(int(entry.name))
        except OSError:
            continue  # gone meanwhile, a zombie, or another user's process
    return found


def _has_open_file(proc: Path, inside: tuple[str, str]) -> bool:
    for fd in (proc / "fd").iterdir():
        with contextlib.suppress(OSError):
            if _is_inside(os.readlink(fd), inside):
                return True
    return False


def _is_inside(path: str, inside: tuple[str, str]) -> bool:
    return path == inside[0] or path.startswith(inside[1])


def _relative(path: Path, root: Path) -> str:
    try:
        return str(path.relative_to(root))
    except ValueError:
        return str(path)
