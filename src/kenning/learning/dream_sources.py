"""Where dreaming's candidates come from, each with its provenance: the journal and the recall log.

Sources, and only these:

- **journal items**: bullet points and paragraphs of ``memory/YYYY-MM-DD.md``
  entries written by a person (``cli``), an MCP host (``mcp``), or the
  pre-compaction flush of an *interactive* session. A flush entry is traced
  to its session through the archived ``journal_append`` call that wrote it;
  an entry of any other or unknown source is left out (fail closed).
- **recalls**: every ``memory_search`` / ``session_search`` stores its query
  and hits (``recalls``, ``recall_hits``). A chunk hit in a journal file
  counts for the items in the chunk's lines that share a word with the query;
  a message hit counts for the message (or its paragraph closest to the
  query) when the message is a user's or assistant's in an interactive
  session. A recall made by an automated session (its archived
  ``*_search`` call, same query, just before) is left out.

Never sources: automated sessions (cron, subagent, review), flush and
compaction messages, tool results, recalled-context blocks, fenced code and
shell lines, DREAMS.md and anything else Kenning reports — so the system never
re-learns its own output.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from functools import cached_property
from typing import Literal

from kenning.home import Home
from kenning.journal import JournalError
from kenning.storage import Sessions, Storage
from kenning.storage.text import query_terms

INTERACTIVE = frozenset({"cli", "run", "mcp"})
MIN_CHARS = 12
MAX_CHARS = 400

_DAY_PATH = re.compile(r"^memory/(\d{4}-\d{2}-\d{2})\.md$")
_HEADING = re.compile(r"^## (\d{2}:\d{2}(?::\d{2})?) · (\S+)\s*$")
_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+(.*)$")
_RECALLED = re.compile(
    r"<(recalled[\w-]*|memory-context|active_memory[\w-]*)\b[^>]*>.*?</\1>", re.DOTALL | re.I
)
_SHELL = re.compile(r"^\s*(\$|#!|>>>|`[^`]+`$)")
_SEARCH_TOOLS = ("memory_search", "session_search")
# A recall and the archived call that made it: the call is stored before the
# tool runs, and a search seldom takes longer than this.
_ATTRIBUTION_WINDOW_S = 600.0


@dataclass(frozen=True)
class SourceRef:
    kind: Literal["journal", "message"]
    ref: str  # "memory/2026-11-29.md#L12" or "session <id> #<seq>"
    day: date
    at: float = 0.0  # when it was said (a journal entry: its heading's time), unix seconds


@dataclass(frozen=True)
class Recall:
    recall_id: int
    query: str
    at: float
    rank: int


@dataclass
class Candidate:
    text: str
    sources: list[SourceRef] = field(default_factory=list)
    recalls: dict[int, Recall] = field(default_factory=dict)

    @property
    def key(self) -> str:
        return hashlib.sha256(normalise(self.text).encode("utf-8")).hexdigest()[:16]

    @cached_property
    def tokens(self) -> frozenset[str]:
        # the text never changes (a merge keeps this one's), and every phase asks
        return frozenset(query_terms(self.text))

    @property
    def newest(self) -> date:
        return max(s.day for s in self.sources)

    @property
    def queries(self) -> set[str]:
        return {normalise(r.query) for r in self.recalls.values()}

    def merge(self, other: Candidate) -> None:
        for source in other.sources:
            if source not in self.sources:
                self.sources.append(source)
        self.recalls.update(other.recalls)


def normalise(text: str) -> str:
    return " ".join(text.split()).casefold()


def clean(text: str) -> str:
    """The text without recalled-context blocks, markup noise or surrounding space."""
    text = _RECALLED.sub(" ", text)
    return " ".join(text.replace("**", "").split())


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a and b else 0.0


# -- the journal ----------------------------------------------------------------------------


@dataclass(frozen=True)
class JournalItem:
    day: date
    line: int  # 1-based
    text: str
    source: str
    at: float = 0.0  # the entry's heading time on that day (local), unix seconds

    def ref(self) -> SourceRef:
        return SourceRef(
            "journal", f"memory/{self.day.isoformat()}.md#L{self.line}", self.day, self.at
        )


def journal_items(home: Home, first: date, last: date) -> list[JournalItem]:
    """Items of the journal days in [first, last], with their entry's source."""
    items: list[JournalItem] = []
    for day in home.journal.days():
        if first <= day <= last:
            try:
                text = home.journal.read(day) or ""
            except JournalError:
                continue  # a link or broken file: not dreamt from (`kenning journal show` says why)
            items.extend(_parse_day(day, text))
    return items


def _parse_day(day: date, text: str) -> list[JournalItem]:
    items: list[JournalItem] = []
    source = ""
    at = datetime.combine(day, datetime.min.time()).timestamp()
    current: list[str] = []
    start = 0
    fenced = False

    def flush() -> None:
        nonlocal current
        body = clean(" ".join(current))
        if source and MIN_CHARS <= len(body) <= MAX_CHARS:
            items.append(JournalItem(day, start, body, source, at))
        current = []

    for number, line in enumerate(text.splitlines(), 1):
        if line.strip().startswith("```"):
            flush()
            fenced = not fenced
            continue
        if fenced:
            continue
        heading = _HEADING.match(line)
        if heading or line.startswith("#"):
            flush()
            if heading:
                source = heading.group(2)
                at = datetime.combine(day, time.fromisoformat(heading.group(1))).timestamp()
            continue
        item = _ITEM.match(line)
        if item or not line.strip():
            flush()
            if item and not _SHELL.match(item.group(1)):
                current, start = [item.group(1)], number
            continue
        if _SHELL.match(line):
            flush()
            continue
        if not current:
            start = number
        current.append(line.strip())
    flush()
    return items


def flush_sources(sessions: Sessions, first: date, last: date) -> dict[str, str]:
    """normalised journal text -> source of the session whose flush appended it."""
    since = datetime.combine(first - timedelta(days=1), datetime.min.time()).timestamp()
    until = datetime.combine(last + timedelta(days=2), datetime.min.time()).timestamp()
    rows = sessions.journal_flushes(since, until)
    found: dict[str, str] = {}
    for raw_calls, source in rows:
        for name, args in _calls(raw_calls):
            text = args.get("text")
            if name == "journal_append" and isinstance(text, str):
                found.setdefault(normalise(clean(text)), str(source))
    return found


def _calls(raw: str | None) -> Iterable[tuple[str, dict[str, object]]]:
    try:
        calls = json.loads(raw or "[]")
    except ValueError:
        return
    for call in calls if isinstance(calls, list) else ():
        if not isinstance(call, dict):
            continue
        try:
            args = json.loads(str(call.get("arguments") or "{}"))
        except ValueError:
            continue
        if isinstance(args, dict):
            yield str(call.get("name", "")), args


def interactive_items(home: Home, items: list[JournalItem], storage: Storage) -> list[JournalItem]:
    """Items whose entry came from a person, an MCP host or an interactive session's flush."""
    if not items:
        return []
    flushed = flush_sources(storage.sessions, min(i.day for i in items), max(i.day for i in items))
    kept = []
    for item in items:
        if item.source in ("cli", "mcp"):
            kept.append(item)
        elif item.source == "flush":
            session_source = _flush_source_of(item, flushed)
            if session_source in INTERACTIVE:
                kept.append(item)
    return kept


def _flush_source_of(item: JournalItem, flushed: dict[str, str]) -> str | None:
    needle = normalise(item.text)
    for text, source in flushed.items():
        if needle in text:
            return source
    return None


# -- the recall log -------------------------------------------------------------------------


@dataclass(frozen=True)
class Hit:
    recall: Recall
    kind: str
    item_id: int


def recall_hits(storage: Storage, since: float) -> list[Hit]:
    """Every hit of every recall since ``since`` that an interactive session (or a person) made."""
    rows = storage.recalls.hits_since(since)
    automated = _automated_searches(storage.sessions, since - _ATTRIBUTION_WINDOW_S)
    hits = []
    for rid, query, at, kind, item_id, rank in rows:
        if _made_by_automation(str(query), float(at), automated):
            continue
        recall = Recall(int(rid), str(query), float(at), int(rank))
        hits.append(Hit(recall, str(kind), int(item_id)))
    return hits


def _automated_searches(sessions: Sessions, since: float) -> dict[str, list[float]]:
    """normalised query -> times automated sessions asked it (their archived calls)."""
    rows = sessions.tool_calls_since(list(_SEARCH_TOOLS), sorted(INTERACTIVE), since)
    found: dict[str, list[float]] = {}
    for raw, created in rows:
        for name, args in _calls(raw):
            query = args.get("query")
            if name in _SEARCH_TOOLS and isinstance(query, str):
                found.setdefault(normalise(query), []).append(float(created))
    return found


def _made_by_automation(query: str, at: float, automated: dict[str, list[float]]) -> bool:
    return any(0 <= at - t <= _ATTRIBUTION_WINDOW_S for t in automated.get(normalise(query), ()))


def chunk_lines(storage: Storage, ids: Iterable[int]) -> dict[int, tuple[date, int, int]]:
    """chunk id -> (journal day, first line, last line), for chunks of journal day files."""
    wanted = sorted(set(ids))
    if not wanted:
        return {}
    found = {}
    for cid, path, start, end in storage.chunks.lines(wanted):
        match = _DAY_PATH.match(str(path))
        if match:  # journal day files only: never DREAMS.md, MEMORY.md or extra paths
            found[int(cid)] = (date.fromisoformat(match.group(1)), int(start), int(end))
    return found


def recalled_messages(storage: Storage, hits: list[Hit]) -> list[tuple[Hit, str, SourceRef]]:
    """(hit, candidate text, source) for message hits in interactive sessions."""
    ids = sorted({h.item_id for h in hits if h.kind == "message"})
    if not ids:
        return []
    usable = {}
    for message, source in storage.sessions.with_source(ids):
        mid, sid, seq, role = message.id or 0, message.session_id, message.seq, message.role
        content, created = message.content, message.created_at or 0.0
        flags = message.meta or {}
        internal = isinstance(flags, dict) and (flags.get("flush") or "compaction" in flags)
        if source in INTERACTIVE and role in ("user", "assistant") and not internal:
            day = datetime.fromtimestamp(float(created)).date()
            ref = SourceRef("message", f"session {sid} #{seq}", day, float(created))
            usable[int(mid)] = (str(content), ref)
    out = []
    for hit in hits:
        if hit.kind == "message" and hit.item_id in usable:
            content, ref = usable[hit.item_id]
            text = best_passage(content, hit.recall.query)
            if text:
                out.append((hit, text, ref))
    return out


def best_passage(content: str, query: str) -> str:
    """The message itself when short, else its paragraph or sentence closest to the query."""
    pieces = _pieces(content)
    if len(pieces) == 1 and pieces[0] == clean(content):
        return pieces[0]
    terms = set(query_terms(query))
    if not pieces or not terms:
        return ""
    best = max(pieces, key=lambda p: len(terms & set(query_terms(p))))
    return best if terms & set(query_terms(best)) else ""


# -- what was said later ------------------------------------------------------------------


@dataclass(frozen=True)
class Statement:
    """A journal item or a sentence of an interactive message, with when it was said."""

    text: str
    source: SourceRef

    @cached_property
    def tokens(self) -> frozenset[str]:
        return frozenset(query_terms(self.text))


def said_since(
    home: Home, storage: Storage, first: date, since: float = -math.inf
) -> list[Statement]:
    """Everything a person or an interactive session said from ``first`` on: the
    journal items dreaming would read and the user's and assistant's messages
    (their sentences when long), whether recalled or not — what a candidate is
    checked against before promotion, so a fact corrected later is never promoted.
    Messages before ``since`` (unix seconds) are left out: none can supersede."""
    items = interactive_items(home, journal_items(home, first, date.max), storage)
    out = [Statement(i.text, i.ref()) for i in items]
    since = max(since, datetime.combine(first, datetime.min.time()).timestamp())
    for message in storage.sessions.said_since(sorted(INTERACTIVE), since):
        sid, seq, content, created = (
            message.session_id,
            message.seq,
            message.content,
            message.created_at or 0.0,
        )
        flags = message.meta or {}
        if isinstance(flags, dict) and (flags.get("flush") or "compaction" in flags):
            continue
        day = datetime.fromtimestamp(float(created)).date()
        ref = SourceRef("message", f"session {sid} #{seq}", day, float(created))
        for piece in _pieces(str(content or "")):
            out.append(Statement(piece, ref))
    return out


def _pieces(content: str) -> list[str]:
    """The message when short, else its paragraphs and sentences (as ``best_passage`` cuts)."""
    text = clean(content)
    if MIN_CHARS <= len(text) <= MAX_CHARS:
        return [text]
    pieces = [clean(p) for p in re.split(r"\n\s*\n|(?<=[.!?])\s+", _RECALLED.sub(" ", content))]
    return [p for p in pieces if MIN_CHARS <= len(p) <= MAX_CHARS and not _SHELL.match(p)]
