"""Skill folders on disk: read one as a snapshot, hash it, and write a new snapshot over it.

Invariants:
- A snapshot is ``{relative posix path: bytes}`` of the regular files in a skill
  folder. Hidden names (starting with '.') are skipped: they are lock files
  and the temp files of interrupted atomic writes, never skill content.
- Symbolic links are refused wherever they appear, the skill folder and the
  skills folder included (:class:`SkillError`), because following one would
  read or write outside the home.
- :func:`write_snapshot` changes only what differs, each file by an atomic
  replace, so a crash leaves every file either old or new. If the disk
  refuses half-way, the files already changed are put back before the error
  is raised.
- The content hash is over paths and bytes, independent of mtimes, so it says
  "same text" exactly and is cheap to compare.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import stat
from collections.abc import Mapping
from pathlib import Path

from kenning.fsutil import atomic_write
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


def write_snapshot(folder: Path, before: Mapping[str, bytes], after: Mapping[str, bytes]) -> None:
    """Make ``folder`` (holding ``before``) hold ``after``; all or nothing on OSError."""
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
