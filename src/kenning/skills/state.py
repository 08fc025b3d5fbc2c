"""What Kenning knows about each skill, kept outside the author's text.

Two small JSON files in the skills folder:

- ``.state.json`` (versioned with the home): per skill, who created it (agent,
  user or bundled), pinned, active/stale/archived, deleted (moved to
  ``.archive/``), when it was created and last changed on purpose, whether a
  person has changed it, and the content hash after Kenning's last write (a
  different hash now means someone edited the folder by hand).
- ``.usage.json`` (not versioned: it changes on every ``skill_view`` and would
  bury real changes in the history): use count and last use.

Both are replaced atomically, under the library's lock, so a crash leaves the
old or the new file. A file that no longer parses is copied to ``backups/``
and read as empty with a warning; an empty record means "written by the
user", which keeps automation and the curator off every skill (fail closed).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import shutil
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal, get_args

from kenning.fsutil import atomic_write

log = logging.getLogger(__name__)

Author = Literal["agent", "user", "bundled"]
Status = Literal["active", "stale", "archived"]
AUTHORS: tuple[str, ...] = get_args(Author)
STATUSES: tuple[str, ...] = get_args(Status)

STATE_FILE = ".state.json"
USAGE_FILE = ".usage.json"
_FORMAT = 1


def iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="seconds")


def parse_iso(text: str) -> datetime | None:
    if not text:
        return None
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


@dataclass(frozen=True)
class SkillRecord:
    """Provenance and lifecycle of one skill. The defaults describe an unknown folder."""

    created_by: Author = "user"
    pinned: bool = False
    status: Status = "active"
    deleted: bool = False
    created_at: str = ""
    touched_at: str = ""  # last change made on purpose (not by the curator)
    status_since: str = ""
    status_reason: str = ""
    user_modified: bool = False  # a person changed it: automation keeps off
    hash: str = ""  # folder hash after Kenning's last write

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, raw: object) -> SkillRecord:
        if not isinstance(raw, dict):
            return cls()
        known = {f.name: f for f in dataclasses.fields(cls)}
        values: dict[str, Any] = {}
        for key, value in raw.items():
            if key in known and isinstance(value, type(getattr(cls(), key))):
                values[key] = value
        if values.get("created_by") not in AUTHORS:
            values.pop("created_by", None)
        if values.get("status") not in STATUSES:
            values.pop("status", None)
        return cls(**values)

    def replace(self, **changes: Any) -> SkillRecord:
        return dataclasses.replace(self, **changes)


@dataclass(frozen=True)
class Usage:
    count: int = 0
    last_used: str = ""


class StateStore:
    """The two JSON files of one skills folder. Callers hold the library's lock to write."""

    def __init__(self, skills_dir: Path, backups_dir: Path) -> None:
        self.dir = skills_dir
        self.backups = backups_dir

    @property
    def state_path(self) -> Path:
        return self.dir / STATE_FILE

    @property
    def usage_path(self) -> Path:
        return self.dir / USAGE_FILE

    # -- records -------------------------------------------------------------

    def records(self) -> dict[str, SkillRecord]:
        raw = self._load(self.state_path)
        return {
            name: SkillRecord.from_dict(value)
            for name, value in raw.items()
            if isinstance(name, str)
        }

    def save_records(self, records: dict[str, SkillRecord]) -> None:
        # One skill per line, sorted: the versioned file diffs line by line.
        body = ",\n".join(
            f"  {json.dumps(name)}: {json.dumps(records[name].to_dict(), sort_keys=True)}"
            for name in sorted(records)
        )
        text = f'{{"format": {_FORMAT}, "skills": {{\n{body}\n}}}}\n'
        atomic_write(self.state_path, text)

    # -- usage ---------------------------------------------------------------

    def usage(self) -> dict[str, Usage]:
        out = {}
        for name, value in self._load(self.usage_path).items():
            if isinstance(value, dict):
                count = value.get("count", 0)
                last = value.get("last_used", "")
                out[name] = Usage(
                    count if isinstance(count, int) else 0, last if isinstance(last, str) else ""
                )
        return out

    def save_usage(self, usage: dict[str, Usage]) -> None:
        data = {
            "format": _FORMAT,
            "skills": {n: dataclasses.asdict(usage[n]) for n in sorted(usage)},
        }
        atomic_write(self.usage_path, json.dumps(data, separators=(",", ":")) + "\n")

    # -- plumbing ------------------------------------------------------------

    def _load(self, path: Path) -> dict[str, Any]:
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            return {}
        try:
            data = json.loads(raw.decode("utf-8"))
            skills = data["skills"]
            if not isinstance(skills, dict):
                raise TypeError("'skills' is not an object")
        except (ValueError, KeyError, TypeError) as exc:
            backup = self._backup(path, raw)
            log.warning(
                "%s does not parse (%s); a copy is at %s and every skill is treated as "
                "written by the user until the file is rewritten",
                path,
                exc,
                backup,
            )
            return {}
        return skills

    def _backup(self, path: Path, raw: bytes) -> Path:
        digest = hashlib.sha256(raw).hexdigest()[:12]
        dest = self.backups / "skills" / f"{path.name.lstrip('.')}.{digest}.bak"
        if not dest.exists():
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, dest)
        return dest
