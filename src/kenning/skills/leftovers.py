"""Debris of killed skill writes: finding it (lint, doctor) and clearing it (writes, doctor --fix).

A write killed half-way leaves hidden debris, never a broken skill: the temp
file of an atomic replace (``.SKILL.md.<random>.tmp`` beside the file), the
staging folder of a create (``skills/.<name>.<random>.tmp``), or — from
Kenning versions before staged creates — a skill folder holding nothing but
such temp files. None of these is listed as a skill; they only take space
and, for the last kind, a name.

Clearing holds the library lock, and still leaves anything younger than
:data:`~kenning.fsutil.STALE_TEMP_AGE_S` alone, because writers that do not
take the lock (an editor, the agent's file tool) use the same temp names.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from kenning import clock
from kenning.fsutil import STALE_TEMP_AGE_S, age_text, is_temp_name
from kenning.locks import exclusive_lock
from kenning.skills.files import clear_debris, holds_skill, prune_empty_dirs
from kenning.skills.model import name_problem

Kind = Literal["temp", "staging", "not-a-skill"]


@dataclass(frozen=True)
class Leftover:
    path: Path
    kind: Kind
    age_s: float

    def describe(self, skills_dir: Path) -> str:
        rel = f"skills/{self.path.relative_to(skills_dir).as_posix()}"
        if self.kind == "not-a-skill":
            return (
                f"{rel}/ holds no SKILL.md, only leftovers of an interrupted write: "
                "it is not a skill"
            )
        what = "temp file" if self.kind == "temp" else "staging folder of a skill create"
        return f"{rel} is the {what} of an interrupted write ({age_text(self.age_s)} old)"

    @property
    def fix(self) -> str:
        """What to do about it, as one instruction."""
        create = f"`kenning skills create {self.path.name}` makes a skill there"
        if self.age_s < STALE_TEMP_AGE_S:
            soon = "it may belong to a write in progress; check again in a minute"
            return f"{soon} ({create})" if self.kind == "not-a-skill" else soon
        if self.kind == "not-a-skill":
            return f"`kenning doctor --fix` removes it, or {create}"
        return "`kenning doctor --fix` removes it"


def find(skills_dir: Path, *, deep: bool = True) -> list[Leftover]:
    """Debris under ``skills_dir``; ``deep=False`` looks at its top level only (cheap)."""
    try:
        with os.scandir(skills_dir) as scan:
            entries = sorted(scan, key=lambda e: e.name)
    except (FileNotFoundError, NotADirectoryError):
        return []
    now = clock.system_timestamp()  # compared with file mtimes, which are system time
    found = []
    for entry in entries:
        path = Path(entry.path)
        if is_temp_name(entry.name):
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            if not stat.S_ISLNK(st.st_mode):
                kind: Kind = "staging" if stat.S_ISDIR(st.st_mode) else "temp"
                found.append(Leftover(path, kind, max(0.0, now - st.st_mtime)))
        elif deep and entry.is_dir(follow_symlinks=False):  # d_type: no stat per skill
            if name_problem(entry.name) is None and not holds_skill(path):
                newest = _newest_if_only_debris(path)
                if newest is not None:
                    found.append(Leftover(path, "not-a-skill", max(0.0, now - newest)))
                    continue
            found += _temps_inside(path, now)
    return found


def sweep(skills_dir: Path, lock_file: Path, *, deep: bool = True) -> list[Leftover]:
    """Remove the debris old enough to be nobody's, under the library lock; returns it.

    Callers already holding the library lock use :func:`sweep_locked`.
    """
    with exclusive_lock(lock_file):
        return sweep_locked(skills_dir, deep=deep)


def sweep_locked(skills_dir: Path, *, deep: bool = True) -> list[Leftover]:
    removed = []
    for leftover in find(skills_dir, deep=deep):
        if leftover.age_s < STALE_TEMP_AGE_S:
            continue
        with contextlib.suppress(OSError):
            if leftover.kind == "temp":
                leftover.path.unlink()
            elif leftover.kind == "staging":
                shutil.rmtree(leftover.path)
            else:
                clear_debris(leftover.path)
                prune_empty_dirs(leftover.path)  # hidden files that are not debris stay
                if leftover.path.exists():
                    continue
            removed.append(leftover)
    return removed


def _temps_inside(folder: Path, now: float) -> list[Leftover]:
    out = []
    for dirpath, dirnames, filenames in os.walk(folder, followlinks=False):
        for name in sorted(filenames + [d for d in dirnames if is_temp_name(d)]):
            if not is_temp_name(name):
                continue
            path = Path(dirpath) / name
            with contextlib.suppress(OSError):
                st = os.lstat(path)
                kind: Kind = "staging" if stat.S_ISDIR(st.st_mode) else "temp"
                out.append(Leftover(path, kind, max(0.0, now - st.st_mtime)))
        dirnames[:] = [d for d in dirnames if not is_temp_name(d)]
    return out


def _newest_if_only_debris(folder: Path) -> float | None:
    """The newest mtime in ``folder`` if it holds nothing but temp files (and folders), else
    None: a hidden file of the user's makes it theirs, not debris."""
    newest = os.lstat(folder).st_mtime
    for dirpath, _dirnames, filenames in os.walk(folder, followlinks=False):
        for name in filenames:
            if not is_temp_name(name):
                return None
            with contextlib.suppress(OSError):
                newest = max(newest, os.lstat(os.path.join(dirpath, name)).st_mtime)
    return newest
