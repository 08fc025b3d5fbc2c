"""Reading and writing the hot-memory files without ever losing a write.

Invariants:
- A write is a batch of operations applied all-or-nothing; the budget is
  checked on the final result only (so "remove two, add one" works at the cap).
- Every write holds an exclusive lock, re-reads the file under it, applies
  its operations to what is on disk *now*, and replaces the file atomically.
  Any number of processes can write at once and none loses another's entry.
- A hand edit is never clobbered: operations are applied to the re-read file,
  the file's stamp is checked again just before the rename, and a file that
  no longer parses as entries is backed up and left alone.
- Nothing is truncated or dropped silently: a write that does not fit is
  refused with the current entries, their sizes and what to do next.
- Content is scanned (``kenning.safety.threats``) before it is accepted,
  because it will enter a system prompt later.
"""

from __future__ import annotations

import enum
import hashlib
import re
import shutil
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from kenning.config import MemoryConfig
from kenning.fsutil import ChangedUnderfootError, FileStamp, atomic_write, held
from kenning.history import History
from kenning.memory.entries import (
    UnparseableFileError,
    decode,
    parse_entries,
    serialise_entries,
    usage,
)
from kenning.paths import HomeLayout
from kenning.safety import threats

Action = Literal["add", "replace", "remove"]

# How many times a write re-reads and re-applies after an editor changed the
# file under it. Editors save rarely; more than a few collisions means
# something is rewriting the file in a loop and we should say so.
_MAX_ATTEMPTS = 5


class Target(enum.StrEnum):
    MEMORY = "memory"
    USER = "user"

    @property
    def filename(self) -> str:
        return "MEMORY.md" if self is Target.MEMORY else "USER.md"


class ErrorKind(enum.StrEnum):
    INVALID = "invalid"  # the request itself is malformed
    BLOCKED = "blocked"  # the threat scan refused the content
    NO_MATCH = "no_match"
    AMBIGUOUS = "ambiguous"
    OVER_BUDGET = "over_budget"
    UNPARSEABLE = "unparseable"  # the file on disk is not a list of entries
    BUSY = "busy"  # the file kept changing under us


@dataclass(frozen=True)
class Operation:
    action: Action
    content: str | None = None
    old_text: str | None = None


@dataclass(frozen=True)
class MemoryState:
    """The live entries of one file, as the model and the user should see them."""

    target: Target
    entries: tuple[str, ...]
    budget: int

    @property
    def used(self) -> int:
        return usage(list(self.entries))

    @property
    def percent(self) -> int:
        return round(100 * self.used / self.budget) if self.budget else 100

    def usage_line(self) -> str:
        return f"{self.percent}% — {self.used:,}/{self.budget:,} chars"


@dataclass(frozen=True)
class WriteResult:
    target: Target
    changed: bool
    changes: tuple[str, ...]  # one human line per effective operation
    state: MemoryState
    commit: str | None = None
    skipped: tuple[str, ...] = ()  # e.g. exact duplicates not added twice


@dataclass
class MemoryWriteError(Exception):
    """A refused write. Nothing was written; the fields say why and what next."""

    kind: ErrorKind
    message: str
    next_step: str
    state: MemoryState | None = None
    matches: list[str] = field(default_factory=list)

    def __str__(self) -> str:
        return f"{self.message} {self.next_step}".strip()


class MemoryStore:
    """The two hot-memory files of one home."""

    def __init__(self, layout: HomeLayout, config: MemoryConfig, history: History) -> None:
        self.layout = layout
        self.config = config
        self.history = history

    def path(self, target: Target) -> Path:
        return self.layout.memory_file if target is Target.MEMORY else self.layout.user_file

    def budget(self, target: Target) -> int:
        return self.config.memory_budget if target is Target.MEMORY else self.config.user_budget

    # -- reading -----------------------------------------------------------

    def read(self, target: Target) -> MemoryState:
        """The live entries on disk (raises UnparseableFileError)."""
        entries, _ = self._read(target)
        return MemoryState(target, tuple(entries), self.budget(target))

    def _read(self, target: Target) -> tuple[list[str], FileStamp | None]:
        path = self.path(target)
        stamp = FileStamp.of(path)
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            return [], None
        return parse_entries(decode(raw), max_entry_chars=self.budget(target)), stamp

    # -- writing -----------------------------------------------------------

    def add(self, target: Target, content: str, *, reason: str = "") -> WriteResult:
        return self.apply(target, [Operation("add", content=content)], reason=reason)

    def replace(
        self, target: Target, old_text: str, content: str, *, reason: str = ""
    ) -> WriteResult:
        return self.apply(
            target, [Operation("replace", content=content, old_text=old_text)], reason=reason
        )

    def remove(self, target: Target, old_text: str, *, reason: str = "") -> WriteResult:
        return self.apply(target, [Operation("remove", old_text=old_text)], reason=reason)

    def apply(
        self, target: Target, operations: Sequence[Operation], *, reason: str = ""
    ) -> WriteResult:
        """Apply ``operations`` to ``target`` all-or-nothing (raises MemoryWriteError)."""
        cleaned = [_validate(op) for op in operations]
        if not cleaned:
            raise MemoryWriteError(
                ErrorKind.INVALID, "No operations given.", "Pass at least one add/replace/remove."
            )
        path = self.path(target)
        for _attempt in range(_MAX_ATTEMPTS):
            with held(path):
                try:
                    entries, stamp = self._read(target)
                except UnparseableFileError as exc:
                    raise self._unparseable(target, exc) from exc
                before = MemoryState(target, tuple(entries), self.budget(target))
                after, changes, skipped = _apply_all(before, cleaned)
                if not changes:
                    return WriteResult(target, False, (), before, skipped=tuple(skipped))
                state = MemoryState(target, tuple(after), self.budget(target))
                if state.used > state.budget and state.used > before.used:
                    raise _over_budget(before, state)
                self.history.record_outside_edits([path])
                try:
                    atomic_write(path, serialise_entries(after), expect=stamp)
                except ChangedUnderfootError:
                    continue  # an editor saved mid-write: start again from its version
                message = _commit_message(target, changes, reason)
                commit = self.history.record([path], message)
                return WriteResult(target, True, tuple(changes), state, commit, tuple(skipped))
        raise MemoryWriteError(
            ErrorKind.BUSY,
            f"{target.filename} kept changing while Kenning tried to write it.",
            "Nothing was written. Close any program rewriting the file, then retry.",
        )

    def _unparseable(self, target: Target, exc: UnparseableFileError) -> MemoryWriteError:
        backup = self._backup(target)
        return MemoryWriteError(
            ErrorKind.UNPARSEABLE,
            f"{target.filename} no longer reads as a list of entries ({exc}). "
            f"Nothing was written; a copy of the file is at {backup}.",
            "Fix the file by hand (entries separated by a line holding only §), then retry.",
        )

    def _backup(self, target: Target) -> Path:
        # One backup per distinct broken content, so repeated refusals do not
        # fill the disk; the hash in the name ties the copy to what it saved.
        raw = self.path(target).read_bytes()
        digest = hashlib.sha256(raw).hexdigest()[:12]
        dest = self.layout.backups_dir / "memories" / f"{target.filename}.{digest}.bak"
        if not dest.exists():
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(self.path(target), dest)
        return dest


# -- pure operation logic ------------------------------------------------------

_SEPARATOR_IN_CONTENT = re.compile(r"^[ \t]*§[ \t]*$", re.MULTILINE)


def _validate(op: Operation) -> Operation:
    if op.action not in ("add", "replace", "remove"):
        raise MemoryWriteError(
            ErrorKind.INVALID,
            f"Unknown action {op.action!r}.",
            "Use one of: add, replace, remove.",
        )
    content = op.content.strip() if op.content is not None else None
    old_text = op.old_text.strip() if op.old_text is not None else None
    if op.action in ("add", "replace") and not content:
        raise MemoryWriteError(
            ErrorKind.INVALID,
            f"'{op.action}' needs non-empty content.",
            "Pass the full text of the entry as content.",
        )
    if op.action in ("replace", "remove") and not old_text:
        raise MemoryWriteError(
            ErrorKind.INVALID,
            f"'{op.action}' needs old_text: a unique part of the entry to change.",
            "Pass a short substring that appears in exactly one entry.",
        )
    if content is not None:
        if _SEPARATOR_IN_CONTENT.search(content):
            raise MemoryWriteError(
                ErrorKind.INVALID,
                "The content contains a line holding only '§', which separates entries.",
                "Send each fact as its own add operation.",
            )
        findings = threats.scan(content, "memory")
        if findings:
            raise MemoryWriteError(
                ErrorKind.BLOCKED,
                f"Refused: the content {threats.describe(findings)} "
                f"[{threats.explain(findings)}]. "
                "Memory enters every future system prompt, so it must not carry this.",
                "Nothing was written. " + threats.advice(findings),
            )
    return Operation(op.action, content, old_text)


def _apply_all(
    before: MemoryState, operations: Sequence[Operation]
) -> tuple[list[str], list[str], list[str]]:
    entries = list(before.entries)
    changes: list[str] = []
    skipped: list[str] = []
    for op in operations:
        if op.action == "add":
            assert op.content is not None
            if op.content in entries:
                skipped.append(f"already saved: {preview(op.content)}")
                continue
            entries.append(op.content)
            changes.append(f"added: {preview(op.content)}")
            continue
        assert op.old_text is not None
        index = _locate(entries, op.old_text, before)
        if op.action == "remove":
            changes.append(f"removed: {preview(entries[index])}")
            del entries[index]
            continue
        assert op.content is not None
        old = entries[index]
        if old == op.content:
            skipped.append(f"unchanged: {preview(old)}")
            continue
        if op.content in entries:  # replacing into an existing entry merges the two
            del entries[index]
        else:
            entries[index] = op.content
        changes.append(f"replaced: {preview(old)} → {preview(op.content)}")
    return entries, changes, skipped


def _normalise_space(text: str) -> str:
    return " ".join(text.split()).casefold()


def _locate(entries: list[str], old_text: str, before: MemoryState) -> int:
    """Index of the one entry ``old_text`` identifies, or a refusal saying why not."""
    whole = [i for i, entry in enumerate(entries) if entry == old_text]
    if len(whole) == 1:
        return whole[0]
    hits = [i for i, entry in enumerate(entries) if old_text in entry]
    if not hits:
        # Models often re-type whitespace or case; accept that, but still demand uniqueness.
        needle = _normalise_space(old_text)
        hits = [i for i, entry in enumerate(entries) if needle in _normalise_space(entry)]
    if len(hits) == 1:
        return hits[0]
    if not hits:
        raise MemoryWriteError(
            ErrorKind.NO_MATCH,
            f"No entry contains {preview(old_text)!r}.",
            "Nothing was written. Pick old_text from the current entries below "
            "(a short substring of exactly one entry).",
            state=before,
        )
    raise MemoryWriteError(
        ErrorKind.AMBIGUOUS,
        f"{preview(old_text)!r} matches {len(hits)} entries.",
        "Nothing was written. Be more specific: use a longer substring that appears in only one.",
        state=before,
        matches=[preview(entries[i]) for i in hits],
    )


def _over_budget(before: MemoryState, after: MemoryState) -> MemoryWriteError:
    excess = after.used - after.budget
    return MemoryWriteError(
        ErrorKind.OVER_BUDGET,
        f"{before.target.filename} would hold {after.used:,}/{after.budget:,} chars "
        f"({excess:,} over the budget).",
        "Nothing was written. Consolidate now: in one batch, merge related entries with "
        "replace and remove ones that are stale or easy to re-discover, together with this "
        "add, so the final result fits.",
        state=before,
    )


def preview(text: str, width: int = 80) -> str:
    """One line, at most ``width`` characters, ending in … when cut."""
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def _commit_message(target: Target, changes: list[str], reason: str) -> str:
    verb = changes[0].split(":", 1)[0] if len(changes) == 1 else f"{len(changes)} changes"
    subject = f"memory: {verb} in {target.filename}"
    if len(changes) == 1:
        subject += f" — {changes[0].split(': ', 1)[1]}"
    body = "\n".join(f"- {change}" for change in changes)
    why = f"\n\nWhy: {reason}" if reason else ""
    return f"{subject}\n\n{body}{why}"
