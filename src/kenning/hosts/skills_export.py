"""What Kenning learned, as skills a host reads natively: one folder per agent-made skill.

Claude Code reads ``<skills dir>/<name>/SKILL.md`` with ``name`` and
``description`` front matter, the shape Kenning writes, so a skill is exported
as a copy of its folder. Only skills Kenning's agent made (``created_by``
agent) and still live (active or stale) are exported.

Invariants:

* The host's own skills are never touched: a folder Kenning did not write
  (not in the manifest) is left alone, even if it has a Kenning skill's name.
* Each exported file's hash is kept in the manifest. A patch in Kenning
  rewrites the copy, a retire or delete removes it — but only while the copy
  is still what Kenning wrote; a copy the user edited is theirs from then on
  (left, and no longer tracked).
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path

from kenning.fsutil import atomic_write
from kenning.home import Home
from kenning.hosts.files import Manifest, digest
from kenning.skills.library import SkillLibrary

LIVE = ("active", "stale")


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


def agent_skills(home: Home) -> dict[str, dict[str, bytes]]:
    """name -> {relative file: bytes} of every live skill Kenning's agent made."""
    library = SkillLibrary.for_home(home)
    found: dict[str, dict[str, bytes]] = {}
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


def export_skills(home: Home, manifest: Manifest, target: Path) -> ExportReport:
    """Bring ``target`` (the host's skills folder) in step with Kenning's agent-made skills."""
    report = ExportReport()
    wanted = agent_skills(home)
    for name in sorted(set(manifest.skills) - set(wanted)):
        folder = target / name
        if _unchanged(folder, manifest.skills[name]):
            shutil.rmtree(folder, ignore_errors=True)
            report.removed.append(name)
        else:
            report.skipped.append(f"{folder} was edited outside Kenning; left as it is")
        del manifest.skills[name]
    for name, files in sorted(wanted.items()):
        folder = target / name
        hashes = {rel: digest(data) for rel, data in files.items()}
        known = manifest.skills.get(name)
        if known is None and folder.exists():
            report.skipped.append(f"{folder} is not Kenning's (a skill of your own); left as it is")
            continue
        if known == hashes and _unchanged(folder, hashes):
            continue
        if known is not None and not _unchanged(folder, known):
            report.skipped.append(f"{folder} was edited outside Kenning; left as it is")
            del manifest.skills[name]
            continue
        if not folder.exists():
            manifest.make_parents(folder / "SKILL.md")
        for rel in set(known or {}) - set(files):
            (folder / rel).unlink(missing_ok=True)
        for rel, data in files.items():
            path = folder / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(path, data)  # the folder's creation is what the manifest records
        manifest.skills[name] = hashes
        report.written.append(name)
    return report


def remove_exported(manifest: Manifest, target: Path) -> ExportReport:
    """Uninstall: remove every copy Kenning wrote that is still as it wrote it."""
    report = ExportReport()
    for name, hashes in sorted(manifest.skills.items()):
        folder = target / name
        if _unchanged(folder, hashes):
            shutil.rmtree(folder, ignore_errors=True)
            report.removed.append(name)
        elif folder.exists():
            report.skipped.append(f"{folder} was edited outside Kenning; left as it is")
    manifest.skills = {}
    return report


def _unchanged(folder: Path, hashes: dict[str, str]) -> bool:
    if not folder.is_dir():
        return False
    present = {
        p.relative_to(folder).as_posix(): digest(p.read_bytes())
        for p in folder.rglob("*")
        if p.is_file() and not p.is_symlink()
    }
    return present == hashes
