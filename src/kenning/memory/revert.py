"""Undo one recorded change to hot memory, entry by entry, as a new write.

A line-based ``git revert`` conflicts whenever a later change touched a
neighbouring entry, which in a file of short entries is almost always. So a
revert works on entries instead: entries the change added are removed (if
they are still there, unchanged), entries it removed are added back (if they
are not there already). The result goes through the normal write path —
lock, scan, budget, commit — so a revert can never break a rule a write
could not.
"""

from __future__ import annotations

from dataclasses import dataclass

from kenning.history import History, HistoryError
from kenning.memory.entries import parse_entries
from kenning.memory.store import MemoryStore, Operation, Target, WriteResult, preview


@dataclass(frozen=True)
class RevertOutcome:
    results: tuple[WriteResult, ...]
    notes: tuple[str, ...]  # what could not be undone and why


def revert_change(store: MemoryStore, history: History, rev: str) -> RevertOutcome:
    full = history.resolve(rev)
    changed = set(history.files_changed(full))
    parent = history.parent(full)
    results: list[WriteResult] = []
    notes: list[str] = []
    touched = False
    for target in Target:
        rel = str(store.path(target).relative_to(store.layout.root))
        if rel not in changed:
            continue
        touched = True
        before = _entries_at(history, parent, rel)
        after = _entries_at(history, full, rel)
        current = list(store.read(target).entries)
        ops: list[Operation] = []
        for entry in after:
            if entry in before:
                continue
            if entry in current:
                ops.append(Operation("remove", old_text=entry))
            else:
                notes.append(
                    f"{target.filename}: {preview(entry, 60)!r} was changed since; left as is"
                )
        for entry in before:
            if entry not in after and entry not in current:
                ops.append(Operation("add", content=entry))
        if ops:
            reason = f"revert of change {full[:10]}"
            results.append(store.apply(target, ops, reason=reason))
    if not touched:
        raise HistoryError(f"{rev} did not change MEMORY.md or USER.md; nothing to revert")
    return RevertOutcome(tuple(results), tuple(notes))


def _entries_at(history: History, rev: str | None, rel: str) -> list[str]:
    if rev is None:
        return []
    text = history.show(rev, rel)
    return parse_entries(text) if text else []
