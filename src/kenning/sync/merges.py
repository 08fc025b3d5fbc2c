"""The content merges of ``kenning sync``: pure functions over three versions of a file.

- Hot memory (``MEMORY.md``, ``USER.md``) merges entry by entry, three-way:
  an entry added on either side is kept, an entry one side removed and the
  other left alone is removed, an entry one side edited and the other left
  alone becomes the edit, and an entry edited differently on both sides is
  kept in both versions and reported, never one dropped for the other.
  Entries equal up to spacing and case are one entry. What arrives from the
  remote passes the threat scan first; a refused entry is held back
  (quarantined by the caller) and reported.
- A journal day file is append-only: the union of both sides' entries, in the
  order of their timestamps, each entry once. Arriving entries are scanned
  the same way.
- The skills state file (``skills/.state.json``) merges per skill record, and
  the memory proposals queue (``memories/proposals.jsonl``) per proposal; a
  decision made differently on both sides keeps the local one (reported).
"""

from __future__ import annotations

import difflib
import json
import re
from dataclasses import dataclass, field
from typing import Any

from kenning.memory.entries import parse_entries, serialise_entries
from kenning.memory.store import preview
from kenning.safety import threats


@dataclass
class EntryMerge:
    """The merged entries of one hot-memory file and what the user must hear about."""

    entries: list[str]
    kept_both: list[tuple[str, str]] = field(default_factory=list)  # (local, remote) edits
    refused: list[tuple[str, str]] = field(default_factory=list)  # (entry, why) held back
    edit_kept: list[str] = field(default_factory=list)  # removed here, edited there: kept
    arrived: int = 0  # entries taken from the remote

    @property
    def text(self) -> str:
        return serialise_entries(self.entries)


# How alike an old and a new entry must be to count as an edit of it (difflib ratio).
_SIMILAR = 0.5


__all__ = [
    "EntryMerge",
    "JournalMerge",
    "StateMerge",
    "entries_of",
    "merge_entries",
    "merge_jobs",
    "merge_journal",
    "merge_queue",
    "merge_state",
    "preview",
    "refusal",
]


def _key(entry: str) -> str:
    return " ".join(entry.split()).casefold()


def _dedupe(entries: list[str]) -> list[str]:
    seen: set[str] = set()
    out = []
    for entry in entries:
        if _key(entry) not in seen:
            seen.add(_key(entry))
            out.append(entry)
    return out


def _edits(base: list[str], side: list[str]) -> dict[str, str]:
    """Base entry key -> the side's entry that took its place.

    The store replaces an entry in place, so a changed run of entries pairs
    one for one by position; a run that also grew or shrank pairs each base
    entry with its most similar new entry (if similar at all).
    """
    base_keys, side_keys = [_key(e) for e in base], [_key(e) for e in side]
    matcher = difflib.SequenceMatcher(None, base_keys, side_keys, autojunk=False)
    found = {}
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "replace":
            continue
        if i2 - i1 == j2 - j1:
            for offset in range(i2 - i1):
                found[base_keys[i1 + offset]] = side[j1 + offset]
            continue
        free = set(range(j1, j2))
        for i in range(i1, i2):
            scored = [
                (difflib.SequenceMatcher(None, base_keys[i], side_keys[j]).ratio(), j)
                for j in sorted(free)
            ]
            best = max(scored, default=(0.0, -1))
            if best[0] >= _SIMILAR:
                found[base_keys[i]] = side[best[1]]
                free.discard(best[1])
    return found


def refusal(text: str) -> str | None:
    """Why the threat scan refuses ``text`` (None when it is clean)."""
    findings = threats.scan(text, "memory")
    if not findings:
        return None
    return f"{threats.describe(findings)} [{threats.explain(findings)}]"


def merge_entries(base: list[str], ours: list[str], theirs: list[str]) -> EntryMerge:
    """Three-way merge of entry lists; ``theirs`` is what arrives (see the module docstring)."""
    ours, theirs = _dedupe(ours), _dedupe(theirs)
    base_keys = {_key(e) for e in base}
    our_keys = {_key(e) for e in ours}
    their_keys = {_key(e) for e in theirs}
    our_edits, their_edits = _edits(base, ours), _edits(base, theirs)
    result = EntryMerge(entries=[])
    # Entries new on their side, vetted: each is an addition or the edit of a base entry.
    accepted: dict[str, str] = {}  # key -> entry
    for entry in theirs:
        key = _key(entry)
        if key in our_keys or key in base_keys:
            continue  # already here, or removed/edited here: our change stands
        why = refusal(entry)
        if why is not None:
            result.refused.append((entry, why))
            continue
        accepted[key] = entry
    edit_of: dict[str, str] = {}  # accepted key -> the base key it edits
    replaced: dict[str, str] = {}  # base key -> their accepted edit of it
    for old, new in their_edits.items():
        if _key(new) in accepted:
            edit_of[_key(new)] = old
            replaced[old] = accepted[_key(new)]
    our_edit_of = {_key(new): old for old, new in our_edits.items()}
    if [_key(e) for e in ours] == [_key(e) for e in base]:
        # Unchanged here: their file as it is (so both machines end with the same bytes),
        # less what the scan refused (a refused edit leaves the entry as it was).
        by_key = {_key(e): e for e in ours}
        their_edit_of = {_key(new): old for old, new in their_edits.items()}
        for entry in theirs:
            key = _key(entry)
            if key in by_key or key in accepted:
                result.entries.append(by_key.get(key, entry))
            elif their_edit_of.get(key) in by_key:
                result.entries.append(by_key[their_edit_of[key]])
        result.entries = _dedupe(result.entries)
        result.arrived = sum(1 for e in result.entries if _key(e) not in our_keys)
        return result
    placed: set[str] = set()
    for entry in ours:
        key = _key(entry)
        if key in base_keys and key not in their_keys:
            # They removed or edited it and we left it alone: their change wins ...
            if key in replaced:
                result.entries.append(replaced[key])
                placed.add(_key(replaced[key]))
            elif key in their_edits and _key(their_edits[key]) not in accepted:
                result.entries.append(entry)  # ... unless their edit was refused: keep ours
            continue
        result.entries.append(entry)
        origin = our_edit_of.get(key)
        if origin is not None and origin in replaced and origin not in our_keys:
            # The same entry edited differently on both sides: keep both, say so.
            theirs_version = replaced[origin]
            result.entries.append(theirs_version)
            placed.add(_key(theirs_version))
            result.kept_both.append((entry, theirs_version))
    for key, entry in accepted.items():
        if key in placed:
            continue
        origin = edit_of.get(key)
        if origin is not None and origin not in our_keys:
            result.edit_kept.append(entry)  # removed here, edited there: the edit is kept
        result.entries.append(entry)
    result.entries = _dedupe(result.entries)
    result.arrived = sum(1 for e in result.entries if _key(e) not in our_keys)
    return result


def entries_of(text: str, budget: int) -> list[str]:
    """The entries of one version (UnparseableFileError when it is not a list)."""
    return parse_entries(text, max_entry_chars=budget)


# -- the journal ----------------------------------------------------------------------------

_HEADING = re.compile(r"^## (\d{2}:\d{2}:\d{2}) · ", re.MULTILINE)


@dataclass
class JournalMerge:
    text: str
    refused: list[tuple[str, str]] = field(default_factory=list)
    arrived: int = 0


def _split_day(text: str) -> tuple[str, list[str]]:
    """(text before the first entry, the entries): each entry is its heading and body."""
    text = text.replace("\r\n", "\n")
    starts = [m.start() for m in _HEADING.finditer(text)]
    if not starts:
        return text.strip(), []
    blocks = [text[a:b].strip() for a, b in zip(starts, [*starts[1:], len(text)], strict=True)]
    return text[: starts[0]].strip(), [b for b in blocks if b]


def _when(block: str) -> str:
    match = _HEADING.match(block)
    return match.group(1) if match else ""


def merge_journal(ours: str, theirs: str) -> JournalMerge:
    """The union of two versions of one day file, entries in time order, each once."""
    our_head, our_blocks = _split_day(ours)
    their_head, their_blocks = _split_day(theirs)
    merged = JournalMerge(text="")
    known = set(our_blocks)
    blocks = list(our_blocks)
    for block in their_blocks:
        if block in known:
            continue
        why = refusal(block)
        if why is not None:
            merged.refused.append((block, why))
            continue
        known.add(block)
        blocks.append(block)
        merged.arrived += 1
    head = our_head or their_head
    if their_head and their_head != head and their_head not in head:
        why = refusal(their_head)
        if why is None:
            head = f"{head}\n\n{their_head}" if head else their_head
            merged.arrived += 1
        else:
            merged.refused.append((their_head, why))
    blocks.sort(key=_when)  # stable: entries of the same second keep their order
    parts = [head] if head else []
    merged.text = "\n\n".join([*parts, *blocks]) + "\n" if parts or blocks else ""
    return merged


# -- the skills state file ------------------------------------------------------------------


@dataclass
class StateMerge:
    text: str | None  # None: the versions do not parse; keep the local file
    kept_local: list[str] = field(default_factory=list)  # skills changed on both sides


def _records(text: str | None) -> tuple[int, dict[str, Any]] | None:
    if text is None:
        return 1, {}
    try:
        raw = json.loads(text)
    except ValueError:
        return None
    if not isinstance(raw, dict) or not isinstance(raw.get("skills", {}), dict):
        return None
    version = raw.get("format", 1)
    return (version if isinstance(version, int) else 1), dict(raw.get("skills", {}))


# Record fields where the later moment is the truth, and flags either side may set.
_LATEST = ("created_at", "touched_at", "status_since")
_EITHER = ("user_modified",)
# Decisions a person sees: when both machines made them differently, saying so matters.
_DECISIONS = ("status", "pinned", "deleted")


def _merge_record(base: Any, ours: Any, theirs: Any) -> tuple[Any, bool]:
    """One skill's record changed on both sides: field by field; True if a decision was
    made differently on both (the local one is kept)."""
    if not all(isinstance(r, dict) for r in (base, ours, theirs)):
        return ours, True
    merged = dict(ours)
    decided = False
    for key in {*ours, *theirs}:
        mine, other, was = ours.get(key), theirs.get(key), base.get(key)
        if other == was or mine == other:
            continue
        if mine == was:
            merged[key] = other
        elif key in _LATEST and isinstance(mine, str) and isinstance(other, str):
            merged[key] = max(mine, other)
        elif key in _EITHER:
            merged[key] = bool(mine) or bool(other)
        elif key in _DECISIONS:
            decided = True
    return merged, decided


def merge_state(base: str | None, ours: str | None, theirs: str | None) -> StateMerge:
    """Per-skill three-way merge of ``skills/.state.json`` (layout as the state store writes)."""
    parsed = [_records(base), _records(ours), _records(theirs)]
    if any(p is None for p in parsed):
        return StateMerge(text=None)
    (_, b), (version, o), (_, t) = (p for p in parsed if p is not None)
    result = dict(o)
    kept_local = []
    for name in sorted({*b, *t}):
        if t.get(name) == b.get(name):
            continue  # unchanged there
        if o.get(name) == b.get(name):
            if name in t:
                result[name] = t[name]
            else:
                result.pop(name, None)
        elif o.get(name) != t.get(name) and name in o and name in t:
            result[name], decided = _merge_record(b.get(name, {}), o[name], t[name])
            if decided:
                kept_local.append(name)
    body = ",\n".join(
        f"  {json.dumps(name)}: {json.dumps(result[name], sort_keys=True)}"
        for name in sorted(result)
    )
    return StateMerge(f'{{"format": {version}, "skills": {{\n{body}\n}}}}\n', kept_local)


# -- the memory proposals queue -------------------------------------------------------------


@dataclass
class QueueMerge:
    text: str | None  # None: a version does not parse; keep the local file
    kept_local: list[str] = field(default_factory=list)  # decided differently on both sides


def _queue(text: str | None) -> dict[str, dict[str, Any]] | None:
    out: dict[str, dict[str, Any]] = {}
    for line in (text or "").splitlines():
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except ValueError:
            return None
        if not isinstance(item, dict) or not isinstance(item.get("id"), str):
            return None
        out[item["id"]] = item
    return out


def merge_queue(base: str | None, ours: str | None, theirs: str | None) -> QueueMerge:
    """Three-way merge of ``memories/proposals.jsonl`` by proposal id.

    A proposal held on either machine is kept; a decision made on one machine
    (accepted, rejected) wins over "pending" on the other; two different
    decisions keep the local one (reported).
    """
    parsed = [_queue(base), _queue(ours), _queue(theirs)]
    if any(p is None for p in parsed):
        return QueueMerge(text=None)
    b, o, t = (p if p is not None else {} for p in parsed)
    result = dict(o)
    merged = QueueMerge(text="")
    for key, item in t.items():
        mine = o.get(key)
        if item == b.get(key) or item == mine:
            continue
        if mine is None:
            if key not in b:
                result[key] = item  # held there
            continue  # removed here: stays removed
        if mine == b.get(key) or mine.get("status") == "pending":
            result[key] = item
        elif item.get("status") != "pending":
            merged.kept_local.append(key)
    for key in b:
        if key not in t and o.get(key) == b[key]:
            result.pop(key, None)  # removed there, untouched here
    merged.text = "".join(json.dumps(item, ensure_ascii=False) + "\n" for item in result.values())
    return merged


# -- the cron jobs --------------------------------------------------------------------------


def _jobs(text: str | None) -> dict[str, dict[str, Any]] | None:
    if text is None:
        return {}
    try:
        raw = json.loads(text)
    except ValueError:
        return None
    jobs = raw.get("jobs") if isinstance(raw, dict) else None
    if not isinstance(jobs, list):
        return None
    return {str(j["name"]): j for j in jobs if isinstance(j, dict) and "name" in j}


def merge_jobs(base: str | None, ours: str | None, theirs: str | None) -> QueueMerge:
    """Three-way merge of ``cron/jobs.json`` by job name: a job added, changed or removed
    on one machine is; a job changed differently on both keeps the local one (reported)."""
    parsed = [_jobs(base), _jobs(ours), _jobs(theirs)]
    if any(p is None for p in parsed):
        return QueueMerge(text=None)
    b, o, t = (p if p is not None else {} for p in parsed)
    result = dict(o)
    merged = QueueMerge(text="")
    for name in [*t, *(n for n in b if n not in t)]:
        mine, other, was = o.get(name), t.get(name), b.get(name)
        if other in (was, mine):
            continue
        if mine == was:
            if other is None:
                result.pop(name, None)
            else:
                result[name] = other
        else:
            merged.kept_local.append(name)
    text = json.dumps({"format": 1, "jobs": list(result.values())}, indent=2, ensure_ascii=False)
    merged.text = text + "\n"
    return merged
