"""Finding skills: which exist, where each lives, and their front matter — the read side.

Skills come from two places. The home's ``skills/<name>/`` folders, and the
bundled examples that ship inside the package (``kenning/skills/bundled/``),
which are read in place: a fresh home sees them without any file being
written, and a new Kenning version updates them. A home folder of the same
name shadows a bundled skill; changing a bundled skill first copies it into
the home (copy-on-write), and deleting one records it as deleted so it stays
hidden. Deleted skills live in ``skills/.archive/<name>/``.

Parsing thousands of front matters is the index's main cost, so parsed
metadata is cached per file, keyed by (inode, size, mtime): an edited file,
by Kenning or by hand, is parsed again; an unchanged one never is.
"""

from __future__ import annotations

import os
import stat
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from kenning.skills.errors import SkillError
from kenning.skills.files import Snapshot, holds_skill, read_snapshot, snapshot_hash
from kenning.skills.model import SKILL_FILE, SkillMeta, name_problem, parse_skill_md
from kenning.skills.state import SkillRecord, Usage

BUNDLED_DIR = Path(__file__).with_name("bundled")
ARCHIVE_DIR = ".archive"
MISSING = "SKILL.md is missing"

Where = Literal["home", "bundled", "archive", "absent"]


@dataclass(frozen=True)
class Located:
    """One skill as it is now: where, its files, its record and its hash."""

    name: str
    where: Where
    path: Path | None
    files: Snapshot
    record: SkillRecord | None  # None when absent
    hash: str  # "" when absent

    @property
    def exists(self) -> bool:
        return self.where in ("home", "bundled")


@dataclass(frozen=True)
class SkillInfo:
    """A skill as lists and the index see it: front matter, provenance, use."""

    name: str
    where: Where
    folder: str  # a plain string: building 3,000 Path objects per index costs more than parsing
    meta: SkillMeta | None
    error: str | None  # why SKILL.md could not be read, when meta is None
    record: SkillRecord
    usage: Usage

    @property
    def path(self) -> Path:
        return Path(self.folder)

    @property
    def description(self) -> str:
        return self.meta.one_line if self.meta else ""

    @property
    def tags(self) -> tuple[str, ...]:
        return self.meta.tags if self.meta else ()

    @property
    def status(self) -> str:
        """active, stale, archived (by the curator) or deleted (in skills/.archive/)."""
        return "deleted" if self.where == "archive" else self.record.status


_Stamp = tuple[int, int, int]


class Catalog:
    def __init__(self, skills_dir: Path, bundled_dir: Path | None) -> None:
        self.dir = skills_dir
        self.bundled_dir = bundled_dir
        self._meta: dict[str, tuple[_Stamp, SkillMeta | None, str | None]] = {}
        self._meta_lock = threading.Lock()

    @property
    def archive_dir(self) -> Path:
        return self.dir / ARCHIVE_DIR

    # -- names ---------------------------------------------------------------

    def home_names(self) -> list[str]:
        return sorted(_folder_names(self.dir))

    def bundled_names(self) -> list[str]:
        return sorted(_folder_names(self.bundled_dir))

    def archived_names(self) -> list[str]:
        return sorted(_folder_names(self.archive_dir))

    def bundled_path(self, name: str) -> Path | None:
        if self.bundled_dir is None or name_problem(name) is not None:
            return None
        path = self.bundled_dir / name
        return path if (path / SKILL_FILE).is_file() else None

    # -- one skill -----------------------------------------------------------

    def locate(self, name: str, records: dict[str, SkillRecord]) -> Located:
        """Where ``name`` lives now and what it holds (SkillError if it holds a link)."""
        home = self.dir / name
        record = records.get(name)
        if holds_skill(home):  # a folder of a killed write's leftovers is not a skill
            files = read_snapshot(home)
            return Located(name, "home", home, files, record or SkillRecord(), snapshot_hash(files))
        bundled = self.bundled_path(name)
        if bundled is not None and not (record is not None and record.deleted):
            files = read_snapshot(bundled)
            base = (record or SkillRecord()).replace(created_by="bundled", deleted=False)
            return Located(name, "bundled", bundled, files, base, snapshot_hash(files))
        return Located(name, "absent", None, {}, None, "")

    def infos(
        self,
        records: dict[str, SkillRecord],
        usage: dict[str, Usage],
        *,
        archived: bool = False,
        deleted: bool = False,
    ) -> list[SkillInfo]:
        """Skills sorted by name: active and stale; with the flags also archived / deleted."""
        out: dict[str, SkillInfo] = {}
        base = str(self.dir)
        for name, is_link in sorted(_folder_names(self.dir).items()):
            folder = os.path.join(base, name)
            info = self._info(name, "home", folder, records, usage, is_link=is_link)
            if info.error == MISSING and not holds_skill(Path(folder)):
                continue  # leftovers of a killed write, not a skill (lint reports them)
            out[name] = info
        for name in self.bundled_names():
            record = records.get(name)
            if name not in out and not (record is not None and record.deleted):
                path = self.bundled_path(name)
                if path is not None:
                    out[name] = self._info(name, "bundled", str(path), records, usage)
        shown = [
            info
            for info in out.values()
            if info.record.status != "archived" or archived or info.where == "bundled"
        ]
        if deleted:
            for name in self.archived_names():
                if name not in out:
                    folder = str(self.archive_dir / name)
                    shown.append(self._info(name, "archive", folder, records, usage))
        return sorted(shown, key=lambda info: info.name)

    def info(
        self, name: str, records: dict[str, SkillRecord], usage: dict[str, Usage]
    ) -> SkillInfo | None:
        """One skill's info: the live one (home, else bundled), else a deleted one, else None."""
        if holds_skill(self.dir / name):
            folder = self.dir / name
            return self._info(
                name, "home", str(folder), records, usage, is_link=folder.is_symlink()
            )
        record = records.get(name)
        bundled = self.bundled_path(name)
        if bundled is not None and not (record is not None and record.deleted):
            return self._info(name, "bundled", str(bundled), records, usage)
        if (self.archive_dir / name).is_dir():
            return self._info(name, "archive", str(self.archive_dir / name), records, usage)
        return None

    def _info(
        self,
        name: str,
        where: Where,
        folder: str,
        records: dict[str, SkillRecord],
        usage: dict[str, Usage],
        *,
        is_link: bool = False,
    ) -> SkillInfo:
        record = records.get(name) or SkillRecord()
        if where == "bundled":
            record = record.replace(created_by="bundled", status="active", deleted=False)
        meta: SkillMeta | None = None
        error: str | None = "the skill folder is a symbolic link; Kenning does not follow it"
        if not is_link:  # a link is listed so that lint can say so, but never read through
            meta, error = self.meta(f"{folder}/{SKILL_FILE}", name)
        return SkillInfo(name, where, folder, meta, error, record, usage.get(name, Usage()))

    def meta(self, skill_md: str, folder: str) -> tuple[SkillMeta | None, str | None]:
        """The parsed front matter of ``skill_md`` (cached while the file is unchanged).

        Paths are plain strings here: at thousands of skills, pathlib's object
        overhead was a third of a warm index build.
        """
        try:
            st = os.lstat(skill_md)
        except FileNotFoundError:
            return None, MISSING
        if stat.S_ISLNK(st.st_mode) or not stat.S_ISREG(st.st_mode):
            return None, "SKILL.md is not a regular file"
        stamp = (st.st_ino, st.st_size, st.st_mtime_ns)
        with self._meta_lock:
            cached = self._meta.get(skill_md)
        if cached is not None and cached[0] == stamp:
            return cached[1], cached[2]
        meta: SkillMeta | None = None
        error: str | None = None
        try:
            with open(skill_md, "rb") as handle:
                text = handle.read().decode("utf-8")
            meta, _ = parse_skill_md(text, folder=folder)
        except UnicodeDecodeError:
            error = "SKILL.md is not UTF-8 text"
        except SkillError as exc:
            error = exc.message
        except OSError as exc:
            error = f"SKILL.md cannot be read: {exc.strerror or exc}"
        with self._meta_lock:
            self._meta[skill_md] = (stamp, meta, error)
        return meta, error


def _folder_names(parent: Path | None) -> dict[str, bool]:
    """{valid skill name: is a symbolic link} among the entries of ``parent``. Links are
    included so that they are reported, not silently skipped."""
    if parent is None:
        return {}
    try:
        entries = list(os.scandir(parent))
    except (FileNotFoundError, NotADirectoryError):
        return {}
    names = {}
    for entry in entries:
        if name_problem(entry.name) is not None:
            continue
        if entry.is_symlink():
            names[entry.name] = True
        elif entry.is_dir(follow_symlinks=False):
            names[entry.name] = False
    return names
