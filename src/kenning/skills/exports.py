"""Copies of agent-made skills elsewhere (a host's skills folder), kept in step on each write.

A host such as Claude Code reads ``<skills dir>/<name>/SKILL.md`` with
``name`` and ``description`` front matter, the shape Kenning writes, so a
skill is exported as a copy of its folder. Only skills Kenning's agent made
(``created_by`` agent) and still live (active or stale) are exported.

What was exported where is kept in ledgers: the JSON files in
``<home>/hosts/`` holding ``skills_dir`` (the target folder), ``skills``
(name -> {file: sha256} of each copy as written) and ``created`` (folders made
for them). ``kenning hosts install`` writes one per host and scope (its
manifest, ``kenning.hosts.files.Manifest``, which holds these fields among
others). The library calls ``follow`` after every change it records, so a
patch or a retirement reaches the copies at that moment, whichever process
made it; the hosts' hooks call it too.

Invariants:

* A folder no ledger lists is never touched, even if it has a Kenning
  skill's name: it is the user's.
* A patch rewrites a copy and a retire or delete removes it only while the
  copy is still what Kenning wrote; a copy the user edited is theirs from
  then on (left, and no longer tracked).
* Ledgers are read and rewritten (atomically) under one lock
  (``cache/locks/skill-exports.lock``), so two processes following changes
  at once cannot lose each other's records. A failure to follow is logged,
  never raised: the skill change itself is already committed.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from kenning.fsutil import atomic_write
from kenning.locks import exclusive_lock, locks_dir
from kenning.skills.errors import SkillError

if TYPE_CHECKING:
    from kenning.skills.library import SkillLibrary

log = logging.getLogger(__name__)

LIVE = ("active", "stale")
Files = dict[str, bytes]  # relative path -> bytes


class Ledger(Protocol):
    """What was exported into one folder: name -> {file: sha256}."""

    skills: dict[str, dict[str, str]]

    def make_parents(self, path: Path) -> None:
        """Create ``path``'s missing folders, each recorded as Kenning's."""


@dataclass
class ExportReport:
    written: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # why, one line each

    def describe(self) -> str:
        parts = []
        if self.written:
            parts.append(f"exported {', '.join(self.written)}")
        if self.removed:
            parts.append(f"removed {', '.join(self.removed)}")
        return "; ".join(parts) or "skills in step"


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def agent_skills(library: SkillLibrary) -> dict[str, Files]:
    """name -> {relative file: bytes} of every live skill Kenning's agent made."""
    found: dict[str, Files] = {}
    for info in library.list_skills():
        if info.where != "home" or info.meta is None or info.status not in LIVE:
            continue
        if info.record.created_by != "agent":
            continue
        folder = info.path
        files = {}
        for path in sorted(folder.rglob("*")):
            if path.is_file() and not path.is_symlink():
                files[path.relative_to(folder).as_posix()] = path.read_bytes()
        found[info.name] = files
    return found


def export(wanted: dict[str, Files], ledger: Ledger, target: Path) -> ExportReport:
    """Bring ``target`` in step with ``wanted`` (``agent_skills``), as ``ledger`` records."""
    report = ExportReport()
    for name in sorted(set(ledger.skills) - set(wanted)):
        folder = target / name
        if _unchanged(folder, ledger.skills[name]):
            shutil.rmtree(folder, ignore_errors=True)
            report.removed.append(name)
        else:
            report.skipped.append(f"{folder} was edited outside Kenning; left as it is")
        del ledger.skills[name]
    for name, files in sorted(wanted.items()):
        folder = target / name
        hashes = {rel: digest(data) for rel, data in files.items()}
        known = ledger.skills.get(name)
        if known is None and folder.exists():
            report.skipped.append(f"{folder} is not Kenning's (a skill of your own); left as it is")
            continue
        if known == hashes and _unchanged(folder, hashes):
            continue
        if known is not None and not _unchanged(folder, known):
            report.skipped.append(f"{folder} was edited outside Kenning; left as it is")
            del ledger.skills[name]
            continue
        if not folder.exists():
            ledger.make_parents(folder / "SKILL.md")
        for rel in set(known or {}) - set(files):
            (folder / rel).unlink(missing_ok=True)
        for rel, data in files.items():
            path = folder / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(path, data)  # the folder's creation is what the ledger records
        ledger.skills[name] = hashes
        report.written.append(name)
    return report


def remove_exported(ledger: Ledger, target: Path) -> ExportReport:
    """Remove every copy Kenning wrote that is still as it wrote it (uninstall)."""
    report = ExportReport()
    for name, hashes in sorted(ledger.skills.items()):
        folder = target / name
        if _unchanged(folder, hashes):
            shutil.rmtree(folder, ignore_errors=True)
            report.removed.append(name)
        elif folder.exists():
            report.skipped.append(f"{folder} was edited outside Kenning; left as it is")
    ledger.skills = {}
    return report


@contextlib.contextmanager
def locked(home_root: Path) -> Iterator[None]:
    """Hold the ledgers' lock (not re-entrant). Taken inside the skills lock, never around it."""
    lock = locks_dir(home_root) / "skill-exports.lock"
    lock.parent.mkdir(parents=True, exist_ok=True)
    with exclusive_lock(lock):
        yield


def ledgers_dir(home_root: Path) -> Path:
    return home_root / "hosts"


def follow(library: SkillLibrary, pattern: str = "*.json") -> list[str]:
    """Bring every ledger's folder in step with the library; notes on copies left alone."""
    folder = ledgers_dir(library.layout.root)
    paths = sorted(folder.glob(pattern)) if folder.is_dir() else []
    if not paths:
        return []  # nothing exported anywhere: the common case costs one stat
    notes: list[str] = []
    with locked(library.layout.root):
        wanted = agent_skills(library)
        for path in paths:
            try:
                raw = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError) as exc:
                notes.append(f"{path} cannot be read ({exc}); its exported skills were not updated")
                continue
            if not isinstance(raw, dict) or not isinstance(raw.get("skills_dir"), str):
                continue
            ledger = _RawLedger(raw)
            before = json.dumps(raw, sort_keys=True)
            notes.extend(export(wanted, ledger, Path(raw["skills_dir"])).skipped)
            if json.dumps(raw, sort_keys=True) != before:
                atomic_write(path, json.dumps(raw, indent=2, ensure_ascii=False) + "\n")
    return notes


def follow_quietly(library: SkillLibrary) -> None:
    """``follow`` after a recorded change: a failure is logged, the change stands."""
    try:
        for note in follow(library):
            log.info("skill export: %s", note)
    except (OSError, ValueError, SkillError) as exc:
        log.warning("could not update the exported copies of skills: %s", exc)


class _RawLedger:
    """A ledger file's JSON object, changed in place (its other fields kept as they are)."""

    def __init__(self, raw: dict[str, Any]) -> None:
        self.raw = raw
        skills = raw.get("skills")
        raw["skills"] = skills if isinstance(skills, dict) else {}

    @property
    def skills(self) -> dict[str, dict[str, str]]:
        value: dict[str, dict[str, str]] = self.raw["skills"]
        return value

    @skills.setter
    def skills(self, value: dict[str, dict[str, str]]) -> None:
        self.raw["skills"] = value

    def make_parents(self, path: Path) -> None:
        created = self.raw.setdefault("created", [])
        missing = []
        for parent in path.parents:
            if parent.exists():
                break
            missing.append(parent)
        for made in reversed(missing):
            made.mkdir()
            if str(made) not in created:
                created.append(str(made))


def _unchanged(folder: Path, hashes: dict[str, str]) -> bool:
    if not folder.is_dir():
        return False
    present = {
        p.relative_to(folder).as_posix(): digest(p.read_bytes())
        for p in folder.rglob("*")
        if p.is_file() and not p.is_symlink()
    }
    return present == hashes
