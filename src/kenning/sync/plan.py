"""What the merge of this home with its remote should be: a tree, and what to tell the user.

Git merges everything first (``merge-tree``); then the files Kenning knows
better than git are merged here, from their base, local and remote versions:

- ``memories/MEMORY.md`` and ``memories/USER.md``: entry by entry
  (:func:`kenning.sync.merges.merge_entries`), whatever git made of them;
- ``memory/YYYY-MM-DD.md``: the append-only union of the day's entries;
- ``skills/.state.json``, ``memories/proposals.jsonl`` and ``cron/jobs.json``:
  per record (skill, proposal, job), when git's line merge conflicts;
- a skill (``skills/<name>/``, ``skills/.archive/<name>/``, a proposal) whose
  files git cannot merge stays exactly as it is locally; the remote's version
  is saved aside (``backups/sync/``) and reported; so does a skill whose
  arriving files the skills' threat scan refuses;
- ``config.toml``: git's merge, with the settings it changes here named;
- any other file git cannot merge makes the whole sync refuse, naming it;
- a new home with nothing of its own yet takes the remote's files, through
  the same scans (:meth:`Planner._adopt`).

Planning writes nothing to the home's files: the caller applies the tree
only if there is no conflict.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from typing import Any

from kenning.config import MemoryConfig
from kenning.memory.entries import UnparseableFileError, decode, serialise_entries, usage
from kenning.skills import scan as skill_scan
from kenning.sync import merges
from kenning.sync.repo import EMPTY_BLOB, Change, Repo

MEMORY_FILES = {"memories/MEMORY.md": "memory_budget", "memories/USER.md": "user_budget"}
SKILLS_STATE = "skills/.state.json"
# Files of records merged per record: path -> (merge, what a record is).
_RECORDS = {
    "memories/proposals.jsonl": (merges.merge_queue, "memory proposal"),
    "cron/jobs.json": (merges.merge_jobs, "cron job"),
}
_DAY = re.compile(r"^memory/\d{4}-\d{2}-\d{2}\.md$")
# A home that has nothing of its own yet: these files are Kenning's defaults.
_DEFAULT_FILES = {".gitignore", "config.toml", "skills/.gitignore"}
_FILE_MODES = {"100644", "100755"}


@dataclass(frozen=True)
class Report:
    """One thing the user should know about a merge (none of them is a failure)."""

    kind: str  # kept_both, edit_kept, quarantined, over_budget, skill_kept_local, …
    path: str
    message: str

    def as_dict(self) -> dict[str, str]:
        return {"kind": self.kind, "path": self.path, "message": self.message}


@dataclass
class Plan:
    tree: str
    reports: list[Report] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)  # why the merge is refused
    quarantine: list[dict[str, Any]] = field(default_factory=list)  # refused arrivals
    aside: dict[str, bytes] = field(default_factory=dict)  # backups/sync/<path> -> bytes
    adopted: bool = False  # a new home taking the remote's files (see Planner._adopt)


def skill_unit(path: str) -> str | None:
    """The folder a path under ``skills/`` belongs to (a skill, an archived one), or None."""
    parts = path.split("/")
    if parts[0] != "skills" or len(parts) < 3:
        return None
    if parts[1].startswith(".") and len(parts) >= 4:
        return "/".join(parts[:3])  # skills/.archive/<name>/…
    if parts[1].startswith("."):
        return "/".join(parts[:3])  # skills/.proposals/<id>.json: a file of its own
    return "/".join(parts[:2])


def _settings(data: bytes | None) -> dict[str, Any]:
    """``section.key`` -> value of a config.toml version ({} when missing or broken)."""
    try:
        raw = tomllib.loads((data or b"").decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError):
        return {}
    flat: dict[str, Any] = {}
    for section, values in raw.items():
        if isinstance(values, dict):
            flat.update({f"{section}.{key}": value for key, value in values.items()})
        else:
            flat[section] = values
    return flat


def _text(data: bytes | None) -> str | None:
    return None if data is None else data.decode("utf-8", "replace")


class Planner:
    def __init__(self, repo: Repo, memory: MemoryConfig, stamp: str) -> None:
        self.repo = repo
        self.memory = memory
        self.stamp = stamp  # names the folder remote versions are saved aside in

    def plan(self, ours: str, theirs: str) -> Plan:
        base = self.repo.merge_base(ours, theirs)
        if base is None and self._fresh(ours):
            return self._adopt(ours, theirs)
        merged = self.repo.merge_tree(ours, theirs, unrelated=base is None)
        plan = Plan(tree=merged.tree)
        arriving = {c.path: c for c in self.repo.changes(base, theirs)}
        writes: dict[str, tuple[str, bytes] | None] = {}
        restore: dict[str, str] = {}
        for change in arriving.values():
            if not change.deleted and change.new_mode not in _FILE_MODES:
                plan.conflicts.append(
                    f"{change.path}: the remote has it as a "
                    f"{'symbolic link' if change.new_mode == '120000' else 'non-file'}; "
                    "Kenning syncs regular files only. Replace it on the other machine."
                )
        for path in sorted({*arriving, *merged.conflicted}):
            if path in MEMORY_FILES:
                self._memory(plan, writes, path, base, ours, theirs)
            elif _DAY.match(path):
                self._journal(plan, writes, path, ours, theirs)
            elif path == SKILLS_STATE and path in merged.conflicted:
                self._state(plan, writes, path, base, ours, theirs)
            elif path in _RECORDS and path in merged.conflicted:
                self._records(plan, writes, path, base, ours, theirs)
            elif path in merged.conflicted and (unit := skill_unit(path)) is not None:
                if unit not in restore:
                    restore[unit] = ours
                    self._skill_aside(plan, unit, theirs)
            elif path in merged.conflicted:
                said = [m for m in merged.messages if path in m and "CONFLICT" in m]
                plan.conflicts.append(f"{path}: {said[0] if said else 'git cannot merge it'}")
        if "config.toml" in arriving and "config.toml" not in merged.conflicted:
            self._config_changes(plan, ours, merged.tree)
        self._scan_skills(plan, merged.tree, ours, theirs, arriving, restore)
        if not plan.conflicts:
            plan.tree = self.repo.build_tree(merged.tree, writes, restore)
        return plan

    def _config_changes(self, plan: Plan, ours: str, tree: str) -> None:
        """Settings the remote changes here are named: they steer the model, the shell, …"""
        before, after = (_settings(self.repo.blob(rev, "config.toml")) for rev in (ours, tree))
        changed = sorted(k for k in {*before, *after} if before.get(k) != after.get(k))
        if changed:
            plan.reports.append(
                Report(
                    "config_changed",
                    "config.toml",
                    "settings changed on the other machine now apply here: "
                    + ", ".join(changed[:12])
                    + (f" and {len(changed) - 12} more" if len(changed) > 12 else "")
                    + " (`kenning config show` lists them)",
                )
            )

    def _scan_skills(
        self,
        plan: Plan,
        tree: str,
        ours: str,
        theirs: str,
        arriving: dict[str, Change],
        restore: dict[str, str],
    ) -> None:
        """A skill whose arriving files the skills' threat scan refuses stays as it is here."""
        for unit in sorted({u for p in arriving if (u := skill_unit(p)) is not None}):
            if unit in restore:
                continue
            files = {}
            for path in arriving:
                if skill_unit(path) == unit and (data := self.repo.blob(tree, path)) is not None:
                    files[path] = data
            found = skill_scan.scan_files(files)
            if not found:
                continue
            restore[unit] = ours
            saved = f"{unit}.remote-{self.stamp}"
            for path, data in files.items():
                plan.aside[saved + path[len(unit) :]] = data
            for item in found:
                plan.quarantine.append({"path": item.path, "why": item.describe()})
            plan.reports.append(
                Report(
                    "quarantined",
                    unit,
                    f"{unit} arrived with files the threat scan refuses "
                    f"({'; '.join(f.describe() for f in found)}); the local version is kept "
                    f"and the remote's is saved in backups/sync/{saved}",
                )
            )

    # -- hot memory ------------------------------------------------------------------------

    def _memory(
        self,
        plan: Plan,
        writes: dict[str, tuple[str, bytes] | None],
        path: str,
        base: str | None,
        ours: str,
        theirs: str,
    ) -> None:
        budget: int = getattr(self.memory, MEMORY_FILES[path])
        name = path.split("/")[-1]
        versions = []
        for side, rev in (("base", base), ("local", ours), ("remote", theirs)):
            data = self.repo.blob(rev, path)
            try:
                versions.append(merges.entries_of(decode(data), budget) if data else [])
            except UnparseableFileError as exc:
                if side == "base":
                    versions.append([])  # no common ancestor to go by: union
                elif side == "local":
                    plan.conflicts.append(
                        f"{path}: the local file no longer reads as a list of entries ({exc}); "
                        "fix it by hand (entries separated by a line holding only §), then sync"
                    )
                    return
                else:
                    assert data is not None
                    plan.aside[f"{path}.remote-{self.stamp}"] = data
                    plan.reports.append(
                        Report(
                            "remote_unparseable",
                            path,
                            f"the remote's {name} does not read as a list of entries ({exc}); "
                            f"the local one is kept and the remote's is saved in "
                            f"backups/sync/{path}.remote-{self.stamp}",
                        )
                    )
                    writes[path] = ("100644", self.repo.blob(ours, path) or b"")
                    return
        merged = merges.merge_entries(*versions)
        writes[path] = ("100644", serialise_entries(merged.entries).encode("utf-8"))
        for local, remote in merged.kept_both:
            plan.reports.append(
                Report(
                    "kept_both",
                    path,
                    f"one entry of {name} was edited differently on both machines; both are "
                    f"kept: «{merges.preview(local)}» (here) and «{merges.preview(remote)}» "
                    "(remote). Keep one with `kenning memory remove`.",
                )
            )
        for entry in merged.edit_kept:
            plan.reports.append(
                Report(
                    "edit_kept",
                    path,
                    f"an entry of {name} removed here was edited on the other machine; the edit "
                    f"is kept: «{merges.preview(entry)}»",
                )
            )
        self._refused(plan, path, merged.refused)
        used = usage(merged.entries)
        if used > budget and used > usage(versions[1]):
            plan.reports.append(
                Report(
                    "over_budget",
                    path,
                    f"{name} now holds {used:,}/{budget:,} chars ({used - budget:,} over its "
                    "budget) with what arrived; nothing was cut. Consolidate it "
                    "(`kenning memory show`, then replace/remove) before it takes new entries.",
                )
            )

    def _refused(self, plan: Plan, path: str, refused: list[tuple[str, str]]) -> None:
        for entry, why in refused:
            plan.quarantine.append({"path": path, "text": entry, "why": why})
            plan.reports.append(
                Report(
                    "quarantined",
                    path,
                    f"an entry arriving in {path} was refused: it {why}. It was not merged; "
                    "it is kept in backups/sync/quarantine.jsonl",
                )
            )

    # -- the journal and the skills -----------------------------------------------------------

    def _journal(
        self,
        plan: Plan,
        writes: dict[str, tuple[str, bytes] | None],
        path: str,
        ours: str,
        theirs: str,
    ) -> None:
        local = _text(self.repo.blob(ours, path)) or ""
        merged = merges.merge_journal(local, _text(self.repo.blob(theirs, path)) or "")
        self._refused(plan, path, merged.refused)
        if merged.text or local:
            writes[path] = ("100644", merged.text.encode("utf-8"))
        else:
            writes[path] = None

    def _state(
        self,
        plan: Plan,
        writes: dict[str, tuple[str, bytes] | None],
        path: str,
        base: str | None,
        ours: str,
        theirs: str,
    ) -> None:
        texts = [_text(self.repo.blob(rev, path)) for rev in (base, ours, theirs)]
        merged = merges.merge_state(*texts)
        if merged.text is None:
            writes[path] = ("100644", self.repo.blob(ours, path) or b"")
            plan.reports.append(
                Report("skill_kept_local", path, "the skills' state does not parse; local kept")
            )
            return
        writes[path] = ("100644", merged.text.encode("utf-8"))
        for name in merged.kept_local:
            plan.reports.append(
                Report(
                    "skill_kept_local",
                    path,
                    f"skill {name!r}: its status was changed differently on both machines; "
                    "the local one is kept",
                )
            )

    def _records(
        self,
        plan: Plan,
        writes: dict[str, tuple[str, bytes] | None],
        path: str,
        base: str | None,
        ours: str,
        theirs: str,
    ) -> None:
        merge, what = _RECORDS[path]
        merged = merge(*(_text(self.repo.blob(rev, path)) for rev in (base, ours, theirs)))
        if merged.text is None:
            plan.conflicts.append(f"{path}: a version does not parse, so it cannot be merged")
            return
        writes[path] = ("100644", merged.text.encode("utf-8"))
        for key in merged.kept_local:
            plan.reports.append(
                Report(
                    "record_kept_local",
                    path,
                    f"{what} {key} was changed differently on both machines; the local one is kept",
                )
            )

    def _skill_aside(self, plan: Plan, unit: str, theirs: str) -> None:
        saved = f"{unit}.remote-{self.stamp}"
        for _mode, blob, path in self.repo.files(theirs, unit):
            plan.aside[saved + path[len(unit) :]] = self.repo.read_blob(blob)
        plan.reports.append(
            Report(
                "skill_kept_local",
                unit,
                f"{unit} was changed on both machines in ways git cannot merge; the local "
                f"version is kept as it was and the remote's is saved in backups/sync/{saved}",
            )
        )

    # -- the first sync of a new home -----------------------------------------------------------

    def _fresh(self, ours: str) -> bool:
        """Whether the local home holds nothing but Kenning's defaults and empty files."""
        return all(
            path in _DEFAULT_FILES or blob == EMPTY_BLOB for _m, blob, path in self.repo.files(ours)
        )

    def _adopt(self, ours: str, theirs: str) -> Plan:
        """A new home joins an existing remote: it takes the remote's files as they are,
        through the same scans as any arrival."""
        plan = Plan(tree=self.repo.tree_of(theirs), adopted=True)
        remote = {path: blob for _m, blob, path in self.repo.files(theirs)}
        writes: dict[str, tuple[str, bytes] | None] = {}
        restore: dict[str, str] = {}
        for mode, blob, path in self.repo.files(ours):
            if path not in remote and blob != EMPTY_BLOB:
                writes[path] = (mode, self.repo.read_blob(blob))
            elif path == "config.toml" and remote.get(path) not in (None, blob):
                plan.aside[f"config.toml.local-{self.stamp}"] = self.repo.read_blob(blob)
                plan.reports.append(
                    Report(
                        "config_replaced",
                        path,
                        "this new home takes the remote's config.toml; its own is saved in "
                        f"backups/sync/config.toml.local-{self.stamp}",
                    )
                )
        arriving = {c.path: c for c in self.repo.changes(None, theirs)}
        for path in sorted(arriving):
            if path in MEMORY_FILES:
                self._memory(plan, writes, path, None, ours, theirs)
            elif _DAY.match(path):
                self._journal(plan, writes, path, ours, theirs)
        self._scan_skills(plan, plan.tree, ours, theirs, arriving, restore)
        if writes or restore:
            plan.tree = self.repo.build_tree(plan.tree, writes, restore)
        return plan
