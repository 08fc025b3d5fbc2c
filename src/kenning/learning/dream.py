"""Dreaming: consolidate what was noted and recalled into MEMORY.md — rule-based, gated, traceable.

Three phases, each a pure function of the sources (:mod:`.dream_sources`)
and the clock, so a run can be repeated, dry-run and tested on any date:

- **light**: candidates of the last ``dream.light_days`` days, near-identical
  ones merged (Jaccard ≥ 0.9 over words, sources and recalls united), scored;
- **REM**: recurring themes of the last ``dream.rem_days`` days — words that
  come back in several candidates on several days; a candidate on a theme
  gets the "conceptual" part of its score;
- **deep**: candidates up to ``dream.max_age_days`` old are promoted into
  MEMORY.md only if they pass *every* gate — score ≥ ``min_score``, recalled
  ≥ ``min_recalls`` times by ≥ ``min_distinct_queries`` distinct queries,
  not older than ``max_age_days`` — at most ``max_promotions`` per run, best
  first, within MEMORY.md's budget (a candidate that does not fit is skipped,
  nothing is ever cut), never one already in MEMORY.md, covered by an entry,
  or promoted before (a person who removed it meant it), and never one that a
  newer statement contradicts — "the staging DB is on port 5432", then days
  later "staging DB moved to port 6543" (journal or any interactive message,
  recalled or not; ``memory.restate``): the newer may be promoted, and
  DREAMS.md names the older as superseded and by what.

Writing: MEMORY.md is read once and hashed; just before the rename, under the
file's lock, it is hashed again, and a file changed since it was read is
never overwritten — the run stops, promotes nothing, and the next run tries
again. Each promotion is traceable: its sources and the queries that
recalled it are in the ledger (``memory/.dreams/promotions.jsonl``), in the
commit message, and in ``DREAMS.md``, the report for people — which is never
a source (only journal day files and archived messages are read).

Scores (weights after OpenClaw's deep phase, each part in [0, 1]): relevance
0.30 (mean 1/rank of its hits), frequency 0.24 (n/(n+2) recalls), query
diversity 0.15 (distinct queries or recall days, of 3), recency 0.15
(14-day half-life), consolidation 0.10 (distinct days seen, of 3),
conceptual 0.06 (on a REM theme).
"""

from __future__ import annotations

import hashlib
import json
import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from pathlib import Path

from kenning import clock
from kenning.fsutil import FileStamp, atomic_write, held
from kenning.home import Home
from kenning.learning import dream_sources as src
from kenning.learning import dream_supersede as supersede
from kenning.learning.dream_report import render_report, write_report
from kenning.memory import restate
from kenning.memory.entries import (
    ENTRY_SEPARATOR,
    UnparseableFileError,
    decode,
    parse_entries,
    serialise_entries,
)
from kenning.memory.store import MemoryFileError, Target
from kenning.safety import threats
from kenning.storage.text import query_terms

PHASES = ("light", "rem", "deep")
DUPLICATE = supersede.DUPLICATE  # Jaccard above which two candidates are one
COVERED = 0.6  # ... and above which an existing MEMORY.md entry already says it
WEIGHTS = {
    "relevance": 0.30,
    "frequency": 0.24,
    "diversity": 0.15,
    "recency": 0.15,
    "consolidation": 0.10,
    "conceptual": 0.06,
}
RECENCY_HALF_LIFE_DAYS = 14.0
THEME_MIN_CANDIDATES = 3
THEME_MIN_DAYS = 2
MAX_THEMES = 10
LEDGER = Path("memory") / ".dreams" / "promotions.jsonl"
DREAMS_FILE = "DREAMS.md"


class DreamConflict(RuntimeError):
    """MEMORY.md changed between the read and the write; nothing was promoted."""


@dataclass
class Scored:
    candidate: src.Candidate
    score: float = 0.0
    parts: dict[str, float] = field(default_factory=dict)
    verdict: str = ""  # "promoted", or why not
    superseded_by: src.Statement | None = None  # a later statement that changes its value

    @property
    def text(self) -> str:
        return self.candidate.text


@dataclass(frozen=True)
class Theme:
    word: str
    candidates: int
    days: int


@dataclass
class DreamReport:
    now: datetime
    phases: tuple[str, ...]
    dry_run: bool
    light: list[Scored] = field(default_factory=list)
    themes: list[Theme] = field(default_factory=list)
    considered: list[Scored] = field(default_factory=list)
    promoted: list[Scored] = field(default_factory=list)
    aborted: str | None = None
    commit: str | None = None
    memory_used: tuple[int, int] = (0, 0)  # (chars after, budget)

    def to_dict(self) -> dict[str, object]:
        def one(s: Scored) -> dict[str, object]:
            c = s.candidate
            return {
                "text": c.text,
                "key": c.key,
                "score": round(s.score, 3),
                "recalls": len(c.recalls),
                "queries": sorted(c.queries),
                "sources": [x.ref for x in c.sources],
                "verdict": s.verdict,
            } | (
                {
                    "superseded_by": {
                        "text": s.superseded_by.text,
                        "source": s.superseded_by.source.ref,
                    }
                }
                if s.superseded_by is not None
                else {}
            )

        return {
            "at": self.now.isoformat(timespec="seconds"),
            "phases": list(self.phases),
            "dry_run": self.dry_run,
            "light": [one(s) for s in self.light],
            "themes": [t.__dict__ for t in self.themes],
            "considered": [one(s) for s in self.considered],
            "promoted": [one(s) for s in self.promoted],
            "aborted": self.aborted,
            "commit": self.commit,
            "memory_used": list(self.memory_used),
        }


class Dreamer:
    """One home's consolidation. ``clock`` is local wall time (tests pass a fixed one)."""

    def __init__(
        self,
        home: Home,
        *,
        clock: Callable[[], datetime] = clock.local,
        before_write: Callable[[], None] | None = None,
        superseders: supersede.Index = supersede.Superseders,
    ) -> None:
        self.home = home
        self.config = home.config.dream
        self.clock = clock
        # Called after MEMORY.md was read and before it is written back (tests
        # use it to play the user who edits the file at the worst moment).
        self.before_write = before_write
        # How a newer statement is found (``supersede.exhaustive`` in tests and
        # the benchmark: the same answers, every statement weighed).
        self.superseders = superseders

    # -- gathering ------------------------------------------------------------------------

    def candidates(self, now: datetime, days: int) -> list[src.Candidate]:
        """Candidates with a source in the last ``days`` days, near-duplicates merged."""
        first = now.date() - timedelta(days=max(1, days) - 1)
        storage = self.home.archive.storage
        items = src.interactive_items(
            self.home, src.journal_items(self.home, first, now.date()), storage
        )
        since = datetime.combine(first, datetime.min.time()).timestamp()
        hits = src.recall_hits(storage, since)
        chunks = src.chunk_lines(storage, (h.item_id for h in hits if h.kind == "chunk"))
        by_text: dict[str, src.Candidate] = {}

        def add(text: str, ref: src.SourceRef) -> src.Candidate:
            key = src.normalise(text)
            found = by_text.get(key)
            if found is None:
                found = by_text[key] = src.Candidate(text)
            if ref not in found.sources:
                found.sources.append(ref)
            return found

        located = {}
        for item in items:
            located[(item.day, item.line)] = add(item.text, item.ref())
        on_day: dict[date, list[tuple[int, src.Candidate]]] = {}  # a hit reads its day's items
        for (item_day, line), candidate in located.items():
            on_day.setdefault(item_day, []).append((line, candidate))
        for hit in hits:
            if hit.kind != "chunk" or hit.item_id not in chunks:
                continue
            day, start, end = chunks[hit.item_id]
            terms = set(query_terms(hit.recall.query))
            for line, candidate in on_day.get(day, ()):
                if start <= line <= end and terms & candidate.tokens:
                    candidate.recalls[hit.recall.recall_id] = hit.recall
        for hit, text, ref in src.recalled_messages(storage, hits):
            add(text, ref).recalls[hit.recall.recall_id] = hit.recall
        return merge_near_duplicates(list(by_text.values()))

    # -- phases ---------------------------------------------------------------------------

    def light(self, now: datetime) -> list[Scored]:
        found = self.candidates(now, self.config.light_days)
        return rank([score(c, now, set()) for c in found])

    def rem(self, now: datetime) -> list[Theme]:
        return themes(self.candidates(now, self.config.rem_days))

    def run(self, *, phases: Sequence[str] = PHASES, dry_run: bool = False) -> DreamReport:
        """Run ``phases`` now; writes MEMORY.md (deep), DREAMS.md and one commit unless dry."""
        now = self.clock()
        report = DreamReport(now, tuple(p for p in PHASES if p in phases), dry_run)
        if "light" in report.phases:
            report.light = self.light(now)
        theme_words: set[str] = set()
        if "rem" in report.phases or "deep" in report.phases:
            report.themes = self.rem(now)
            theme_words = {t.word for t in report.themes}
        if "deep" not in report.phases:
            if not dry_run:
                report.commit = self._record(report, memory=None)
            return report
        self._deep(report, now, theme_words)
        return report

    def _deep(self, report: DreamReport, now: datetime, theme_words: set[str]) -> None:
        cfg = self.config
        try:
            found, stamp = self.home.memory.read_raw(Target.MEMORY)
        except MemoryFileError as exc:
            report.aborted = f"{exc.message} {exc.next_step}"
            if not report.dry_run:
                report.commit = self._record(report, memory=None)
            return
        raw = found or b""
        digest = hashlib.sha256(raw).hexdigest()
        try:
            entries = parse_entries(
                decode(raw), max_entry_chars=self.home.memory.budget(Target.MEMORY)
            )
        except UnparseableFileError as exc:
            report.aborted = f"MEMORY.md does not read as a list of entries ({exc}); fix it by hand"
            if not report.dry_run:
                report.commit = self._record(report, memory=None)
            return
        budget = self.home.memory.budget(Target.MEMORY)
        ledger = self._ledger()
        # A little past the age gate, so the report can say what aged out.
        window = cfg.max_age_days + cfg.rem_days
        scored = rank([score(c, now, theme_words) for c in self.candidates(now, window)])
        first = now.date() - timedelta(days=max(1, window) - 1)
        # Only what was said after the earliest candidate can supersede one.
        since = min((supersede.after(s.candidate) for s in scored), default=math.inf)
        said = src.said_since(self.home, self.home.archive.storage, first, since) if scored else []
        later = self.superseders(said, [s.candidate for s in scored])
        new_entries = list(entries)
        for item in scored:
            item.superseded_by = later(item.candidate)
            item.verdict = self._gate(item, now, new_entries, ledger, budget, len(report.promoted))
            if item.verdict == "promoted":
                new_entries.append(item.text)
                report.promoted.append(item)
        report.considered = scored
        report.memory_used = (len(ENTRY_SEPARATOR.join(new_entries)), budget)
        if report.dry_run:
            return
        if self.before_write is not None:
            self.before_write()
        content = serialise_entries(new_entries) if report.promoted else None
        try:
            report.commit = self._record(report, memory=(content, digest, stamp))
        except DreamConflict as exc:
            report.aborted = str(exc)
            for item in report.promoted:
                item.verdict = "not promoted: the run was aborted"
            report.promoted = []
            report.commit = self._record(report, memory=None)

    def _gate(
        self,
        item: Scored,
        now: datetime,
        entries: list[str],
        ledger: dict[str, str],
        budget: int,
        promoted: int,
    ) -> str:
        cfg = self.config
        c = item.candidate
        if item.superseded_by is not None:
            by = item.superseded_by
            return (
                f"superseded by a newer statement: {by.text!r} ({by.source.ref}, {by.source.day})"
            )
        age = (now.date() - c.newest).days
        if age > cfg.max_age_days:
            return f"too old: {age} days > {cfg.max_age_days}"
        if len(c.recalls) < cfg.min_recalls:
            return f"recalled {len(c.recalls)}× < {cfg.min_recalls}"
        if len(c.queries) < cfg.min_distinct_queries:
            return f"{len(c.queries)} distinct queries < {cfg.min_distinct_queries}"
        if item.score < cfg.min_score:
            return f"score {item.score:.2f} < {cfg.min_score:g}"
        if c.key in ledger:
            return f"promoted before ({ledger[c.key]}); not promoted again"
        for entry in entries:
            if src.normalise(entry) == src.normalise(c.text):
                return "already in MEMORY.md"
            words = frozenset(query_terms(entry))
            if src.jaccard(words, c.tokens) < DUPLICATE and restate.contradicts(words, c.tokens):
                # MEMORY.md entries carry no date, so which is newer is the
                # person's call; never both kept silently
                return (
                    f"says another value than the MEMORY.md entry {entry[:60]!r}; not "
                    "promoted beside it (if this one is current: kenning memory replace)"
                )
            if src.jaccard(words, c.tokens) >= COVERED:
                return f"covered by a MEMORY.md entry: {entry[:60]!r}"
        if "\n" in c.text or threats.scan(c.text, "memory"):
            return "refused by the safety scan"
        if promoted >= cfg.max_promotions:
            return f"over this run's limit of {cfg.max_promotions} promotions"
        after = len(ENTRY_SEPARATOR.join([*entries, c.text]))
        if after > budget:
            return (
                f"MEMORY.md is full ({len(ENTRY_SEPARATOR.join(entries))}/{budget} chars): skipped"
            )
        return "promoted"

    # -- writing --------------------------------------------------------------------------

    def _ledger(self) -> dict[str, str]:
        """key -> when it was promoted."""
        path = self.home.root / LEDGER
        found: dict[str, str] = {}
        if not path.exists():
            return found
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                row = json.loads(line)
            except ValueError:
                continue
            if isinstance(row, dict) and isinstance(row.get("key"), str):
                found[row["key"]] = str(row.get("at", ""))[:10]
        return found

    def _record(
        self,
        report: DreamReport,
        *,
        memory: tuple[str | None, str, FileStamp | None] | None,
    ) -> str | None:
        """Write MEMORY.md (hash-checked), the ledger and DREAMS.md; one commit."""
        layout = self.home.layout
        dreams = self.home.root / DREAMS_FILE
        paths = [dreams]
        with held(layout.memory_file):
            if memory is not None and memory[0] is not None:
                content, digest, stamp = memory
                assert content is not None
                try:
                    current = self.home.memory.read_raw(Target.MEMORY)[0] or b""
                except MemoryFileError as exc:
                    raise DreamConflict(f"{exc.message} Nothing was promoted.") from exc
                if hashlib.sha256(current).hexdigest() != digest:
                    raise DreamConflict(
                        "MEMORY.md changed after it was read; nothing was promoted, so the "
                        "change is kept. The next run will try again."
                    )
                self.home.history.record_outside_edits([layout.memory_file])
                atomic_write(layout.memory_file, content, expect=stamp)
                self._append_ledger(report)
                paths += [layout.memory_file, self.home.root / LEDGER]
            write_report(dreams, render_report(report))
            return self.home.history.record(paths, _commit_message(report))

    def _append_ledger(self, report: DreamReport) -> None:
        path = self.home.root / LEDGER
        old = path.read_text(encoding="utf-8") if path.exists() else ""
        rows = [
            json.dumps(
                {
                    "key": s.candidate.key,
                    "at": report.now.isoformat(timespec="seconds"),
                    "text": s.text,
                    "score": round(s.score, 3),
                    "queries": sorted(s.candidate.queries),
                    "recall_ids": sorted(s.candidate.recalls),
                    "sources": [x.ref for x in s.candidate.sources],
                },
                ensure_ascii=False,
            )
            for s in report.promoted
        ]
        atomic_write(path, old + "".join(row + "\n" for row in rows))


def _commit_message(report: DreamReport) -> str:
    if report.promoted:
        subject = f"dream: promote {len(report.promoted)} entries into MEMORY.md"
    else:
        subject = "dream: report (nothing promoted)"
    lines = [subject, ""]
    for s in report.promoted:
        lines.append(f"- {s.text}")
        lines.append(f"  sources: {', '.join(x.ref for x in s.candidate.sources)}")
        lines.append(
            f"  recalled {len(s.candidate.recalls)}× by: {', '.join(sorted(s.candidate.queries))}"
        )
    if report.aborted:
        lines.append(f"Aborted: {report.aborted}")
    lines.append(
        f"Phases: {', '.join(report.phases)}; {len(report.considered)} candidate(s) considered."
    )
    return "\n".join(lines)


# -- pure parts ---------------------------------------------------------------------------


def merge_near_duplicates(found: list[src.Candidate]) -> list[src.Candidate]:
    """Candidates whose words overlap ≥ DUPLICATE are one (the longer text is kept):
    each, longest first, joins the first kept candidate that close to it.

    Found through a prefix index, not by weighing every pair (a month of
    recalls is thousands of candidates): two word sets with Jaccard ≥ t share
    a word among the first ``|x| - ⌈t·|x|⌉ + 1`` of each, in any one order of
    the words — rarest first here, so few postings are read."""
    ordered = sorted(found, key=lambda c: (-len(c.text), c.text))
    counts = Counter(w for c in ordered for w in c.tokens)
    kept: list[src.Candidate] = []
    postings: dict[str, list[int]] = {}
    for candidate in ordered:
        words = sorted(candidate.tokens, key=lambda w: (counts[w], w))
        # less a hair: 0.9 · 10 may come out a rounding error above 9, and the prefix one short
        least = math.ceil(DUPLICATE * len(words) - 1e-9)
        prefix = words[: len(words) - least + 1] if words else []
        for k in sorted({k for w in prefix for k in postings.get(w, ())}):
            if src.jaccard(candidate.tokens, kept[k].tokens) >= DUPLICATE:
                kept[k].merge(candidate)  # its text, so its words and prefix, stay
                break
        else:
            for word in prefix:
                postings.setdefault(word, []).append(len(kept))
            kept.append(candidate)
    return kept


def score(candidate: src.Candidate, now: datetime, theme_words: set[str]) -> Scored:
    recalls = list(candidate.recalls.values())
    n = len(recalls)
    recall_days = {datetime.fromtimestamp(r.at).date() for r in recalls}
    seen_days = recall_days | {s.day for s in candidate.sources}
    age = max(0, (now.date() - candidate.newest).days)
    parts = {
        "relevance": sum(1 / max(1, r.rank) for r in recalls) / n if n else 0.0,
        "frequency": n / (n + 2),
        "diversity": min(1.0, max(len(candidate.queries), len(recall_days)) / 3),
        "recency": 0.5 ** (age / RECENCY_HALF_LIFE_DAYS),
        "consolidation": min(1.0, len(seen_days) / 3),
        "conceptual": 1.0 if candidate.tokens & theme_words else 0.0,
    }
    total = sum(WEIGHTS[k] * v for k, v in parts.items())
    return Scored(candidate, round(total, 6), parts)


def rank(scored: list[Scored]) -> list[Scored]:
    return sorted(scored, key=lambda s: (-s.score, s.candidate.newest, s.text))


def themes(found: list[src.Candidate]) -> list[Theme]:
    """Words that recur in ≥ 3 candidates seen on ≥ 2 days (longest-standing first)."""
    by_word: dict[str, tuple[int, set[date]]] = {}
    for candidate in found:
        days = {s.day for s in candidate.sources}
        for word in candidate.tokens:
            if len(word) < 4 or word.isdigit():
                continue
            count, seen = by_word.get(word, (0, set()))
            by_word[word] = (count + 1, seen | days)
    out = [
        Theme(word, count, len(days))
        for word, (count, days) in by_word.items()
        if count >= THEME_MIN_CANDIDATES and len(days) >= THEME_MIN_DAYS
    ]
    out.sort(key=lambda t: (-t.days, -t.candidates, t.word))
    return out[:MAX_THEMES]
