"""Skill folders on disk: read one as a snapshot, hash it, and write a new snapshot over it.

Invariants:
- A snapshot is ``{relative posix path: bytes}`` of the regular files in a skill
  folder. Hidden names (starting with '.') are skipped: they are lock files
  and the temp files of interrupted atomic writes, never skill content.
- Symbolic links are refused wherever they appear, the skill folder and the
  skills folder included (:class:`SkillError`), because following one would
  read or write outside the home.
- A folder is a skill only if it holds something a skill is made of (a
  non-hidden entry: SKILL.md, support files); one holding only hidden debris
  (the temp files of a killed write) is not a skill, and a new skill may be
  created over it (:func:`holds_skill`).
- :func:`write_snapshot` creates a new skill folder whole: every file is
  written into a hidden staging folder (``.<name>.<random>.tmp``) that is
  then renamed into place, so a killed create leaves no half-made skill, only
  a hidden staging folder that no list shows. An existing skill changes only
  where it differs, each file by an atomic replace, so a crash leaves every
  file either old or new. If the disk refuses half-way, the files already
  changed are put back before the error is raised.
- The content hash is over paths and bytes, independent of mtimes, so it says
  "same text" exactly and is cheap to compare.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import secrets
import shutil
import stat
from collections.abc import Iterable, Mapping
from pathlib import Path

from kenning import clock
from kenning.fsutil import (
    STALE_TEMP_AGE_S,
    TEMP_SUFFIX,
    atomic_write,
    fsync_dir,
    is_temp_name,
    remove_stale_temps,
)
from kenning.skills.errors import ErrorKind, SkillError

Snapshot = dict[str, bytes]


def _link_error(path: Path) -> SkillError:
    return SkillError(
        ErrorKind.INVALID,
        f"{path} is a symbolic link; Kenning never follows links in the skills folder, "
        "because a link can point outside the home.",
        "Replace the link with a real file or folder (or remove it), then retry.",
    )


def refuse_links(root: Path, *parts: str) -> None:
    """SkillError if ``root`` or any existing path below it along ``parts`` is a link."""
    current = root
    for part in ("", *parts):
        current = current / part if part else current
        try:
            mode = os.lstat(current).st_mode
        except FileNotFoundError:
            return
        if stat.S_ISLNK(mode):
            raise _link_error(current)


def read_snapshot(folder: Path) -> Snapshot:
    """Every non-hidden regular file under ``folder`` ({} if it does not exist)."""
    try:
        mode = os.lstat(folder).st_mode
    except FileNotFoundError:
        return {}
    if stat.S_ISLNK(mode):
        raise _link_error(folder)
    found: Snapshot = {}
    for dirpath, dirnames, filenames in os.walk(folder, followlinks=False):
        base = Path(dirpath)
        for name in list(dirnames):
            if stat.S_ISLNK(os.lstat(base / name).st_mode):
                raise _link_error(base / name)
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in sorted(filenames):
            if name.startswith("."):
                continue
            path = base / name
            st = os.lstat(path)
            if stat.S_ISLNK(st.st_mode):
                raise _link_error(path)
            if not stat.S_ISREG(st.st_mode):
                continue
            found[path.relative_to(folder).as_posix()] = path.read_bytes()
    return found


def file_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def snapshot_hash(files: Mapping[str, bytes]) -> str:
    """One hash for a whole folder: its paths and their contents."""
    digest = hashlib.sha256()
    for rel in sorted(files):
        digest.update(rel.encode("utf-8") + b"\x00" + file_hash(files[rel]).encode() + b"\n")
    return digest.hexdigest()


def holds_skill(folder: Path) -> bool:
    """Whether ``folder`` holds anything a skill is made of (any non-hidden entry).

    A folder with only hidden entries (temp files of a killed write, a lock)
    or none at all is not a skill. A link, or a file where a folder should
    be, counts as holding one, so that it is reported rather than replaced.
    """
    try:
        if stat.S_ISLNK(os.lstat(folder).st_mode):
            return True
        with os.scandir(folder) as entries:
            return any(not entry.name.startswith(".") for entry in entries)
    except FileNotFoundError:
        return False
    except NotADirectoryError:
        return True


def write_snapshot(folder: Path, before: Mapping[str, bytes], after: Mapping[str, bytes]) -> None:
    """Make ``folder`` (holding ``before``) hold ``after``; all or nothing on OSError.

    Call while holding the library lock: temp files of the files written are
    then debris of killed writers and are removed first.
    """
    clear_debris(folder, set(before) | set(after))
    if not before and after and _make_room(folder):
        _create(folder, after)
        return
    done: list[str] = []
    try:
        for rel in sorted(set(before) | set(after)):
            old, new = before.get(rel), after.get(rel)
            if old == new:
                continue
            _put(folder, rel, new)
            done.append(rel)
    except OSError:
        for rel in reversed(done):
            with contextlib.suppress(OSError):
                _put(folder, rel, before.get(rel))
        prune_empty_dirs(folder)
        raise
    prune_empty_dirs(folder)


def clear_debris(folder: Path, names: Iterable[str] = ()) -> int:
    """Remove killed writers' temp files in ``folder``; returns how many.

    Temps of ``names`` (files the caller, holding the library lock, is about
    to write) go whatever their age; any other temp only once it is
    :data:`~kenning.fsutil.STALE_TEMP_AGE_S` old, in case a writer that does
    not take the library lock (an editor, the agent's file tool) owns it.
    """
    if not folder.is_dir() or folder.is_symlink():
        return 0
    removed = sum(remove_stale_temps(folder / rel) for rel in names)
    cutoff = clock.system_timestamp() - STALE_TEMP_AGE_S  # against mtimes: system time
    for dirpath, dirnames, filenames in os.walk(folder, followlinks=False):
        dirnames[:] = [d for d in dirnames if not is_temp_name(d)]
        for name in filenames:
            path = Path(dirpath) / name
            with contextlib.suppress(OSError):
                if is_temp_name(name) and os.lstat(path).st_mtime < cutoff:
                    path.unlink()
                    removed += 1
    return removed


def _make_room(folder: Path) -> bool:
    """Whether a new skill folder can be renamed to ``folder``: nothing, or only an empty
    leftover folder (removed here), is in the way."""
    if holds_skill(folder):
        return False
    prune_empty_dirs(folder)  # debris already cleared: empty leftovers go, the folder too
    return not os.path.lexists(folder)


def _create(folder: Path, after: Mapping[str, bytes]) -> None:
    """Write ``after`` into a hidden staging folder, then rename it to ``folder``."""
    staging = folder.with_name(f".{folder.name}.{secrets.token_hex(4)}{TEMP_SUFFIX}")
    staging.parent.mkdir(parents=True, exist_ok=True)
    os.mkdir(staging)  # the umask's mode, like any folder the user makes
    try:
        for rel in sorted(after):
            path = staging / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            with open(path, "xb") as handle:
                handle.write(after[rel])
                handle.flush()
                os.fsync(handle.fileno())
        os.rename(staging, folder)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    fsync_dir(folder.parent)


def _put(folder: Path, rel: str, data: bytes | None) -> None:
    path = folder / rel
    if data is None:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
        return
    refuse_links(folder, *rel.split("/")[:-1])
    atomic_write(path, data)


def prune_empty_dirs(folder: Path) -> None:
    """Remove empty support folders left by removed files (and ``folder`` if empty)."""
    if not folder.is_dir():
        return
    for dirpath, _dirnames, _files in sorted(os.walk(folder), key=lambda t: -len(t[0])):
        path = Path(dirpath)
        with contextlib.suppress(OSError):
            if not any(path.iterdir()):
                path.rmdir()


def move_folder(source: Path, dest: Path) -> None:
    """Rename ``source`` to ``dest`` (same filesystem: atomic); dest must not exist."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    if dest.exists():
        raise FileExistsError(dest)
    os.rename(source, dest)


def copy_folder(source: Path, dest: Path) -> None:
    """Copy a package folder (bundled skill) to ``dest`` via a temp name, then rename."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    temp = dest.with_name(f".{dest.name}.copy.tmp")
    shutil.rmtree(temp, ignore_errors=True)
    shutil.copytree(source, temp, symlinks=False)
    os.rename(temp, dest)
