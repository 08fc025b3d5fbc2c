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
- A file is only ever read as a regular file inside the home and at most
  ``read_cap`` bytes: a symbolic link, a directory, an oversized or
  unparseable file raises :class:`MemoryFileError` on every reader (the CLI,
  the tool, the snapshot, health checks) and is never written over, so
  nothing it points to or holds reaches a prompt or the history.
"""

from __future__ import annotations

import enum
import hashlib
import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from kenning.config import MemoryConfig
from kenning.fsutil import (
    ChangedUnderfootError,
    FileProblem,
    FileStamp,
    UnsafeFileError,
    atomic_write,
    held,
    read_regular,
)
from kenning.history import History
from kenning.memory import restate
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

# Hot memory goes whole into every prompt, so a file far past its budget is
# not memory but a mistake (a pasted log, a wrong `mv`). Reads are capped so
# such a file costs a stat, not minutes of parsing and a prompt of megabytes.
# 256 KiB is over 100x the default budgets: room for any hand edit that
# overshoots and needs consolidating. The cap grows with a raised budget at 32
# bytes per budgeted char (8x the budget even if every char takes 4 bytes).
MIN_READ_CAP = 256 * 1024
READ_CAP_BYTES_PER_CHAR = 32


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
    UNUSABLE = "unusable"  # the path is a link, not a regular file, too large or unreadable
    BUSY = "busy"  # the file kept changing under us


@dataclass(frozen=True)
class Operation:
    action: Action
    content: str | None = None
    old_text: str | None = None
    keep_both: bool = False  # add even when it looks like an update of an entry


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
    history_problem: str | None = None  # saved, but not in history: why and how to fix it
    # entries an add may update (same subject, another value): kept, but said
    restated: tuple[str, ...] = ()


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


_FIXES: dict[FileProblem | Literal["unparseable"], str] = {
    "link": "Kenning does not follow links for hot memory: a link can point outside the home, "
    "and a write would commit what it points to. Replace the link with a regular file or "
    "folder (or remove it to start empty), then retry.",
    "not_file": "Move it aside (e.g. mv {path} {path}.aside) so Kenning can keep a regular "
    "file there, then retry.",
    "too_large": "Trim it by hand to fit the budget (entries separated by a line holding "
    "only §), or move it aside (mv {path} {path}.big) to start a fresh one, then retry.",
    "unreadable": "Fix its permissions so Kenning can read it, then retry.",
    "unparseable": "Fix the file by hand (entries separated by a line holding only §), then retry.",
}


@dataclass
class MemoryFileError(Exception):
    """MEMORY.md or USER.md exists but cannot be used as it is.

    Raised by :meth:`MemoryStore.read` and :meth:`MemoryStore.read_raw`, and so
    by every reader. Nothing from the file was returned and nothing was
    written; the file is left exactly as it is. ``problem`` is "link",
    "not_file", "too_large", "unreadable" or "unparseable"; ``detail``
    completes "<filename> …"; ``str()`` names the path and the fix.
    """

    target: Target
    path: Path
    problem: FileProblem | Literal["unparseable"]
    detail: str
    next_step: str
    # ``detail`` for a model's eyes (prompts, tool results): without a link's
    # target, which is text whoever made the link chose. "" = same as detail.
    model_detail: str = ""

    def __post_init__(self) -> None:
        self.model_detail = self.model_detail or self.detail

    @property
    def message(self) -> str:
        return f"{self.target.filename} {self.detail}."

    def __str__(self) -> str:
        return f"{self.path} {self.detail}. {self.next_step}"


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

    def read_cap(self, target: Target) -> int:
        """The most bytes Kenning reads from ``target`` (see MIN_READ_CAP)."""
        return max(MIN_READ_CAP, READ_CAP_BYTES_PER_CHAR * self.budget(target))

    def read(self, target: Target) -> MemoryState:
        """The live entries on disk (raises MemoryFileError)."""
        raw, _ = self.read_raw(target)
        return MemoryState(target, tuple(self._parse(target, raw)), self.budget(target))

    def read_raw(self, target: Target) -> tuple[bytes | None, FileStamp | None]:
        """The file's bytes and stamp, (None, None) if it does not exist.

        The one way hot memory is read from disk: raises MemoryFileError for a
        link, a non-regular file, a file over ``read_cap`` or one that cannot
        be opened, having read nothing from it.
        """
        path = self.path(target)
        try:
            found = read_regular(path, max_bytes=self.read_cap(target))
        except UnsafeFileError as exc:
            here = exc.path == path
            detail = exc.detail if here else f"is in {exc.path}, which {exc.detail}"
            if exc.problem == "too_large":
                detail += f" (budget {self.budget(target):,} chars)"
            shown = detail
            if exc.problem == "link":
                shown = "is a symbolic link" if here else "is in a folder that is a symbolic link"
            fix = _FIXES[exc.problem].format(path=shlex.quote(str(exc.path)))
            raise MemoryFileError(target, path, exc.problem, detail, fix, shown) from exc
        return (None, None) if found is None else found

    def _parse(self, target: Target, raw: bytes | None) -> list[str]:
        if raw is None:
            return []
        try:
            return parse_entries(decode(raw), max_entry_chars=self.budget(target))
        except UnparseableFileError as exc:
            detail = f"no longer reads as a list of entries ({exc})"
            path = self.path(target)
            raise MemoryFileError(
                target, path, "unparseable", detail, _FIXES["unparseable"]
            ) from exc

    # -- writing -----------------------------------------------------------

    def add(
        self, target: Target, content: str, *, reason: str = "", keep_both: bool = False
    ) -> WriteResult:
        """Add an entry; one that restates an existing entry is refused unless ``keep_both``."""
        op = Operation("add", content=content, keep_both=keep_both)
        return self.apply(target, [op], reason=reason)

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
        try:
            # Refuse a link before taking the lock, whose file would otherwise
            # be created through a linked folder; re-checked under the lock.
            self.read_raw(target)
        except MemoryFileError as exc:
            raise _unusable(exc) from exc
        for _attempt in range(_MAX_ATTEMPTS):
            with held(path):
                try:
                    raw, stamp = self.read_raw(target)
                except MemoryFileError as exc:
                    raise _unusable(exc) from exc
                try:
                    entries = self._parse(target, raw)
                except MemoryFileError as exc:
                    assert raw is not None
                    raise self._unparseable(exc, raw) from exc
                before = MemoryState(target, tuple(entries), self.budget(target))
                after, changes, skipped, restated = _apply_all(before, cleaned)
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
                done = self.history.try_record([path], message)
                return WriteResult(
                    target,
                    True,
                    tuple(changes),
                    state,
                    done.commit,
                    tuple(skipped),
                    done.problem,
                    tuple(restated),
                )
        raise MemoryWriteError(
            ErrorKind.BUSY,
            f"{target.filename} kept changing while Kenning tried to write it.",
            "Nothing was written. Close any program rewriting the file, then retry.",
        )

    def _unparseable(self, exc: MemoryFileError, raw: bytes) -> MemoryWriteError:
        backup = self._backup(exc.target, raw)
        return MemoryWriteError(
            ErrorKind.UNPARSEABLE,
            f"{exc.target.filename} {exc.detail}. "
            f"Nothing was written; a copy of the file is at {backup}.",
            exc.next_step,
        )

    def backup_path(self, target: Target, raw: bytes) -> Path:
        """Where a refused write keeps a copy of ``raw``, a file that no longer parses.

        One backup per distinct broken content, so repeated refusals do not
        fill the disk; the hash in the name ties the copy to what it saved.
        """
        digest = hashlib.sha256(raw).hexdigest()[:12]
        return self.layout.backups_dir / "memories" / f"{target.filename}.{digest}.bak"

    def _backup(self, target: Target, raw: bytes) -> Path:
        # The copy is of the bytes already read (bounded, from no link).
        dest = self.backup_path(target, raw)
        if not dest.exists():
            atomic_write(dest, raw)
        return dest


def _unusable(exc: MemoryFileError) -> MemoryWriteError:
    return MemoryWriteError(
        ErrorKind.UNUSABLE,
        f"{exc.target.filename} {exc.model_detail}. Nothing was written.",
        exc.next_step,
    )


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
    return Operation(op.action, content, old_text, op.keep_both)


def _apply_all(
    before: MemoryState, operations: Sequence[Operation]
) -> tuple[list[str], list[str], list[str], list[str]]:
    entries = list(before.entries)
    changes: list[str] = []
    skipped: list[str] = []
    restated: list[str] = []
    for op in operations:
        if op.action == "add":
            assert op.content is not None
            if op.content in entries:
                skipped.append(f"already saved: {preview(op.content)}")
                continue
            if not op.keep_both:
                restated += [e for e in entries if _restates(e, op.content)]
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
    # an entry replaced or removed later in the same batch is no longer a concern
    return entries, changes, skipped, [e for e in dict.fromkeys(restated) if e in entries]


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


# An add "restates" an entry when it keeps its words but not all of them: the
# same subject and attribute with another value ("Project uses pnpm 8" -> "…
# pnpm 9"; thresholds and their split in ``memory.restate``). The add still
# lands (a false alarm must not block a write: "Project A uses pnpm" /
# "Project B uses pnpm" looks alike), but the result names the entry and how
# to replace it: never both silently.
_restates = restate.restates


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
