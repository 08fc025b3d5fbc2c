"""``kenning bench letta``: facts recalled, and corrections that win, on Letta's core-memory sets.

Data (letta-ai/letta-evals, see shared/data/letta/README.md): 200 fictional
worlds of 10 facts. ``core_memory_read.jsonl`` asks 1,100 questions over them;
``core_memory_update.jsonl`` asks the same questions (same order, same worlds)
with the supporting-fact indices and a ``contradicting_fact`` that changes the
answer. The read file carries no indices, so each read question takes them
from the update row with the same world and question text.

Everything goes through the real archive, index and embedder (cached by
content hash, like ``bench locomo``), one archive per world and storage
layout, never per question. Time is explicit: the world's facts are user
messages of one session from 2024-03-01 09:00 UTC, a second apart, and every
question is asked an hour after the newest message (the engine's clock).
``kenning`` is ``SearchEngine`` as shipped (default ``[search]`` settings,
recency decay on: it is what newer-wins rests on today).

- read: the supporting fact's rank among the world's facts — hit@1, hit@3,
  mrr (0 beyond depth 50) — for kenning, fts5_porter_or and dense.
- update: each question's contradicting fact is stored later, in one of four
  layouts: appended to the facts' session the next day; in its own session 30
  days or a year later; all of the world's corrections in one session 30 days
  later (the same delay as the own-session layout, so the two differ only in
  the grouping). ``newer_wins`` is the share of questions where the
  contradicting fact ranks above every supporting (stale) fact, a missing one
  counting as ranked last; ``newer_first`` where it is the top hit;
  ``stale_in_top10`` where a stale fact is still among the top 10 (older
  stays findable). The other questions' corrections are in the archive too,
  as they would be.
- others corrected (the hard negative for supersession): each update
  question's world with the corrections of the world's *other* questions
  (those sharing none of its supporting facts) in one session 30 days later;
  is a supporting fact still ranked first? Everything said later about the
  same people must not displace an answer nobody corrected.
- losses (``losses="dev"``): kenning's lost update and hard-negative questions
  on that split, each fact's rank and what superseded it (``letta_losses``).

Split: a world is ``dev`` when the first byte of sha256 over its facts (one
per line) is even, else ``held_out`` (~50/50, stable, blind to content).
Tune on dev; report held-out.
"""

from __future__ import annotations

import hashlib
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from kenning.archive.store import Archive, Message
from kenning.bench import letta_losses
from kenning.bench.corpus import SYSTEMS, Corpus, first_rank, json_objects
from kenning.bench.stats import p50_p95
from kenning.config import SearchConfig
from kenning.embed.cache import CachedEmbedder
from kenning.search.engine import SearchEngine

READ_FILE = "core_memory_read.jsonl"
UPDATE_FILE = "core_memory_update.jsonl"
T0 = datetime(2024, 3, 1, 9, 0, tzinfo=UTC).timestamp()
DAY = 86_400.0
ASKED_AFTER = 3_600.0  # every question comes an hour after the newest message
SPLITS = ("all", "dev", "held_out")
READ_METRICS = ("hit@1", "hit@3", "mrr")
UPDATE_METRICS = ("newer_wins", "newer_first", "stale_in_top10")
CHUNK = 10  # worlds built together, so their passages are embedded in one batch
Progress = Callable[[str, int], None]


class LettaDataError(ValueError):
    """The data folder or a line in it is not what the benchmark expects; says where."""


@dataclass(frozen=True)
class Layout:
    name: str
    label: str
    delay_days: float
    where: Literal["facts", "own", "one"]  # the facts' session, one each, one for all


LAYOUTS = (
    Layout("same_session_next_day", "same session, next day", 1, "facts"),
    Layout("own_session_30d", "own session, 30 days later", 30, "own"),
    Layout("own_session_1y", "own session, a year later", 365, "own"),
    Layout("one_session_30d", "all in one session, 30 days later", 30, "one"),
)


OTHERS_DELAY_DAYS = 30.0  # the hard negative's corrections, as in one_session_30d


@dataclass(frozen=True)
class ReadQuestion:
    text: str
    gold: frozenset[int]  # supporting fact indices


@dataclass(frozen=True)
class UpdateQuestion:
    text: str
    stale: frozenset[int]  # the supporting facts the correction contradicts
    correction: str


@dataclass
class World:
    number: int  # 1-based, in order of first appearance in the update file
    facts: tuple[str, ...]
    split: str
    read: list[ReadQuestion] = field(default_factory=list)
    update: list[UpdateQuestion] = field(default_factory=list)


def split_of(facts: tuple[str, ...]) -> str:
    digest = hashlib.sha256("\n".join(facts).encode("utf-8")).digest()
    return "dev" if digest[0] % 2 == 0 else "held_out"


def load(data: Path) -> tuple[list[World], int]:
    """The worlds with their questions, and how many read questions had no update twin."""
    rows = {name: list(_rows(data / name)) for name in (UPDATE_FILE, READ_FILE)}
    worlds: dict[tuple[str, ...], World] = {}
    support: dict[tuple[tuple[str, ...], str], frozenset[int]] = {}
    for where, row in rows[UPDATE_FILE]:
        facts, extra = _facts(where, row)
        indices = extra.get("supporting_fact_indices")
        correction = extra.get("contradicting_fact")
        if not isinstance(indices, list) or not all(
            isinstance(i, int) and 0 <= i < len(facts) for i in indices
        ):
            raise LettaDataError(f"{where}: 'supporting_fact_indices' must list fact indices")
        if not isinstance(correction, str) or not correction.strip():
            raise LettaDataError(f"{where}: 'contradicting_fact' must be a non-empty string")
        world = worlds.setdefault(facts, World(len(worlds) + 1, facts, split_of(facts)))
        text = _question(where, row)
        # Seven corrections are wrapped in a stray pair of quotes in the source.
        clean = correction.strip()
        if len(clean) > 1 and clean[0] == clean[-1] == '"':
            clean = clean[1:-1]
        world.update.append(UpdateQuestion(text, frozenset(indices), clean))
        support[(facts, text)] = frozenset(indices)
    unmatched = 0
    for where, row in rows[READ_FILE]:
        facts, _ = _facts(where, row)
        text = _question(where, row)
        gold = support.get((facts, text))
        if gold is None:
            unmatched += 1
            continue
        worlds[facts].read.append(ReadQuestion(text, gold))
    return list(worlds.values()), unmatched


def _rows(path: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    if not path.exists():
        raise LettaDataError(
            f"{path} not found: --data must be the folder holding {READ_FILE} and {UPDATE_FILE}"
        )
    return json_objects(path, LettaDataError)


def _facts(where: str, row: dict[str, Any]) -> tuple[tuple[str, ...], dict[str, Any]]:
    args = row.get("agent_args")
    extra = args.get("extra") if isinstance(args, dict) else None
    facts = extra.get("facts") if isinstance(extra, dict) else None
    if not isinstance(extra, dict) or not isinstance(facts, list) or not facts:
        raise LettaDataError(f"{where}: 'agent_args.extra.facts' must be a list of strings")
    if not all(isinstance(f, str) for f in facts):
        raise LettaDataError(f"{where}: 'agent_args.extra.facts' must be a list of strings")
    return tuple(facts), extra


def _question(where: str, row: dict[str, Any]) -> str:
    text = row.get("input")
    if not isinstance(text, str) or not text.strip():
        raise LettaDataError(f"{where}: 'input' (the question) must be a non-empty string")
    return text


# -- archives -------------------------------------------------------------------


@dataclass
class _Built:
    corpus: Corpus
    facts: list[int]  # message id of each fact
    corrections: list[int]  # message id of each update question's correction (layouts only)


def _build(path: Path, world: World, layout: Layout | None, embedder: CachedEmbedder) -> _Built:
    """The world's facts as one session, plus its corrections stored as ``layout`` says."""
    archive = Archive(path)
    sid = archive.start_session("import", title=f"world {world.number}", started_at=T0)
    facts = [_add(archive, sid, text, T0 + i) for i, text in enumerate(world.facts)]
    newest = T0 + len(facts) - 1
    corrections: list[int] = []
    if layout is not None:
        start = T0 + layout.delay_days * DAY
        shared = sid
        if layout.where == "one":
            shared = archive.start_session("import", title="corrections", started_at=start)
        for j, q in enumerate(world.update):
            when = start + (60.0 * j if layout.where == "own" else float(j))
            target = shared
            if layout.where == "own":
                target = archive.start_session("import", title=f"correction {j}", started_at=when)
            corrections.append(_add(archive, target, q.correction, when))
            newest = max(newest, when)
    now = newest + ASKED_AFTER
    engine = SearchEngine(archive, embedder, SearchConfig(), clock=lambda: now)
    return _Built(Corpus(archive, engine, embedder), facts, corrections)


def _build_others(path: Path, world: World, question: int, embedder: CachedEmbedder) -> _Built:
    """The world's facts, then the corrections of the questions not about ``question``'s facts."""
    archive = Archive(path)
    sid = archive.start_session("import", title=f"world {world.number}", started_at=T0)
    facts = [_add(archive, sid, text, T0 + i) for i, text in enumerate(world.facts)]
    start = T0 + OTHERS_DELAY_DAYS * DAY
    later = archive.start_session("import", title="other corrections", started_at=start)
    others = others_of(world, question)
    corrections = [_add(archive, later, q.correction, start + j) for j, q in enumerate(others)]
    now = start + len(others) + ASKED_AFTER
    engine = SearchEngine(archive, embedder, SearchConfig(), clock=lambda: now)
    return _Built(Corpus(archive, engine, embedder), facts, corrections)


def others_of(world: World, question: int) -> list[UpdateQuestion]:
    """The world's update questions whose supporting facts ``question`` does not share."""
    mine = world.update[question].stale
    return [q for q in world.update if not q.stale & mine]


def _add(archive: Archive, sid: str, text: str, when: float) -> int:
    stored = archive.append(sid, Message(role="user", content=text, created_at=when))
    assert stored.id is not None
    return stored.id


# -- scoring --------------------------------------------------------------------


def score_read(ranking: list[int], gold: set[int]) -> dict[str, float]:
    first = first_rank(ranking, gold)
    return {
        "hit@1": float(first == 0),
        "hit@3": float(first is not None and first < 3),
        "mrr": 0.0 if first is None else 1.0 / (first + 1),
    }


def score_update(ranking: list[int], newer: int, stale: set[int]) -> dict[str, float]:
    new = first_rank(ranking, {newer})
    old = first_rank(ranking, stale)
    return {
        "newer_wins": float(new is not None and (old is None or new < old)),
        "newer_first": float(new == 0),
        "stale_in_top10": float(old is not None and old < 10),
    }


@dataclass
class _Tally:
    """Per-question scores with the world's split, summed into shares at the end."""

    rows: list[tuple[str, dict[str, float]]] = field(default_factory=list)

    def add(self, split: str, scores: dict[str, float]) -> None:
        self.rows.append((split, scores))

    def summary(self, metrics: tuple[str, ...]) -> dict[str, dict[str, Any]]:
        out: dict[str, dict[str, Any]] = {}
        for split in SPLITS:
            picked = [s for sp, s in self.rows if split in ("all", sp)]
            n = len(picked)
            cell: dict[str, Any] = {"n": n}
            for m in metrics:
                total = sum(s[m] for s in picked)
                cell[m] = round(total / n, 4) if n else 0.0
                if m != "mrr":
                    cell[f"{m}_count"] = round(total)
            out[split] = cell
        return out


def run(
    data: Path,
    embedder: CachedEmbedder,
    *,
    worlds: int | None = None,
    progress: Progress | None = None,
    on_totals: Callable[[int, int], None] | None = None,
    losses: str | None = None,
) -> dict[str, Any]:
    """Build, query and score (the first ``worlds`` worlds, or all); the JSON-ready report.

    ``losses`` ("dev", "held_out" or "all") also lists kenning's losses on that split.
    """
    everything, unmatched = load(data)
    chosen = everything[:worlds] if worlds is not None else everything
    n_read = sum(len(w.read) for w in chosen)
    n_update = sum(len(w.update) for w in chosen)
    n_others = sum(1 for w in chosen for j in range(len(w.update)) if others_of(w, j))
    if on_totals is not None:
        on_totals(len(chosen), n_read + n_update * len(LAYOUTS) + n_others)
    started = time.perf_counter()
    read = {s: _Tally() for s in SYSTEMS}
    update = {(lay.name, s): _Tally() for lay in LAYOUTS for s in SYSTEMS}
    others = {s: _Tally() for s in SYSTEMS}
    latency: dict[str, list[float]] = {s: [] for s in SYSTEMS}
    next_fact_first = dict.fromkeys(SYSTEMS, 0)
    misses: list[dict[str, Any]] = []
    lost: dict[str, list[dict[str, Any]]] = {"update": [], "others_corrected": []}
    texts = [q.text for w in chosen for q in w.read] + [q.text for w in chosen for q in w.update]
    embedder.embed_queries(list(dict.fromkeys(texts)))  # warm: latency is search time
    with tempfile.TemporaryDirectory(prefix="kenning-letta-") as tmp:
        for start in range(0, len(chosen), CHUNK):
            group = chosen[start : start + CHUNK]
            built = {
                (w.number, lay.name if lay else "read"): _build(
                    Path(tmp) / f"w{w.number}-{lay.name if lay else 'read'}.db", w, lay, embedder
                )
                for w in group
                for lay in (None, *LAYOUTS)
            }
            hard = {
                (w.number, j): _build_others(
                    Path(tmp) / f"w{w.number}-others{j}.db", w, j, embedder
                )
                for w in group
                for j in range(len(w.update))
                if others_of(w, j)
            }
            embedder.embed_passages(
                [p for b in (*built.values(), *hard.values()) for p in b.corpus.pending_passages()]
            )
            for b in (*built.values(), *hard.values()):
                b.corpus.prepare()
            for w in group:
                listing = letta_losses.wanted(losses, w.split)
                b = built[(w.number, "read")]
                for q in w.read:
                    gold = {b.facts[i] for i in q.gold}
                    for system in SYSTEMS:
                        t0 = time.perf_counter()
                        ranking = b.corpus.rank(system, q.text)
                        latency[system].append((time.perf_counter() - t0) * 1000)
                        scores = score_read(ranking, gold)
                        read[system].add(w.split, scores)
                        if not scores["hit@1"] and ranking:
                            top = b.facts.index(ranking[0])
                            next_fact_first[system] += any(top == g + 1 for g in q.gold)
                            if system == "kenning":
                                misses.append(_miss(w, q, top, ranking, b.facts))
                    if progress is not None:
                        progress("questions", 1)
                for lay in LAYOUTS:
                    b = built[(w.number, lay.name)]
                    for j, uq in enumerate(w.update):
                        stale = {b.facts[i] for i in uq.stale}
                        for system in SYSTEMS:
                            ranking = b.corpus.rank(system, uq.text)
                            scored = score_update(ranking, b.corrections[j], stale)
                            update[(lay.name, system)].add(w.split, scored)
                            if system == "kenning" and not scored["newer_wins"] and listing:
                                lost["update"].append(
                                    letta_losses.update_loss(
                                        b.corpus.engine,
                                        uq.text,
                                        _texts(w, b, w.update),
                                        b.corrections[j],
                                        [b.facts[i] for i in sorted(uq.stale)],
                                        _where(w, lay.label),
                                    )
                                )
                        if progress is not None:
                            progress("questions", 1)
                for j, uq in enumerate(w.update):
                    if (w.number, j) not in hard:
                        continue
                    b = hard[(w.number, j)]
                    gold = {b.facts[i] for i in uq.stale}
                    for system in SYSTEMS:
                        scores = score_read(b.corpus.rank(system, uq.text), gold)
                        others[system].add(w.split, scores)
                        if system == "kenning" and not scores["hit@1"] and listing:
                            lost["others_corrected"].append(
                                letta_losses.others_loss(
                                    b.corpus.engine,
                                    uq.text,
                                    _texts(w, b, others_of(w, j)),
                                    [b.facts[i] for i in sorted(uq.stale)],
                                    b.corrections,
                                    _where(w, "others corrected"),
                                )
                            )
                    if progress is not None:
                        progress("questions", 1)
            for b in (*built.values(), *hard.values()):
                b.corpus.close()
            for path in Path(tmp).iterdir():
                path.unlink()
            if progress is not None:
                progress("worlds", len(group))
    splits = {s: sum(1 for w in chosen if s in ("all", w.split)) for s in SPLITS}
    listed = {} if losses is None else {"losses": {"split": losses} | lost}
    return {
        "worlds": splits,
        "split_rule": "dev when sha256 of the world's facts (one per line) starts with an "
        "even byte, else held_out",
        "read": {
            "questions": n_read,
            "unmatched_questions": unmatched,
            "systems": {s: read[s].summary(READ_METRICS) for s in SYSTEMS},
            "latency_ms": {s: _latency(latency[s]) for s in SYSTEMS},
            "misses_with_the_next_fact_first": next_fact_first,
            "kenning_misses": misses,
        },
        "update": {
            "questions": n_update,
            "layouts": {
                lay.name: {
                    "label": lay.label,
                    "delay_days": lay.delay_days,
                    "systems": {s: update[(lay.name, s)].summary(UPDATE_METRICS) for s in SYSTEMS},
                }
                for lay in LAYOUTS
            },
        },
        "others_corrected": {
            "questions": n_others,
            "delay_days": OTHERS_DELAY_DAYS,
            "systems": {s: others[s].summary(("hit@1",)) for s in SYSTEMS},
        },
        "embedder": embedder.identity.key(),
        "embedded_new_texts": embedder.misses,
        "seconds": round(time.perf_counter() - started, 1),
    } | listed


def _texts(world: World, built: _Built, corrected: list[UpdateQuestion]) -> dict[int, str]:
    """Message id -> text of a built world's facts and of the corrections stored with them."""
    facts = dict(zip(built.facts, world.facts, strict=True))
    return facts | {i: q.correction for i, q in zip(built.corrections, corrected, strict=True)}


def _where(world: World, layout: str) -> dict[str, Any]:
    return {"layout": layout, "world": world.number, "split": world.split}


def _miss(
    world: World, q: ReadQuestion, top: int, ranking: list[int], facts: list[int]
) -> dict[str, Any]:
    ranks = [ranking.index(facts[g]) + 1 if facts[g] in ranking else None for g in sorted(q.gold)]
    return {
        "world": world.number,
        "split": world.split,
        "question": q.text,
        "supporting": sorted(q.gold),
        "supporting_rank": ranks,
        "top": top,
        "top_fact": world.facts[top],
    }


def _latency(samples: list[float]) -> dict[str, float]:
    p50, p95 = p50_p95(samples or [0.0])
    return {"p50_ms": round(p50, 3), "p95_ms": round(p95, 3)}


# -- the tables -----------------------------------------------------------------


def _share(cell: dict[str, Any], metric: str) -> str:
    return f"{cell[metric]:.4f}"


def _count(cell: dict[str, Any], metric: str) -> str:
    return f"{cell[f'{metric}_count']}/{cell['n']}"


def table(report: dict[str, Any]) -> str:
    w = report["worlds"]
    rd, up = report["read"], report["update"]
    lines = [
        f"Letta core memory: {w['all']} worlds (dev {w['dev']}, held-out {w['held_out']}), "
        f"{rd['questions']:,} read and {up['questions']:,} update questions, embedder "
        f"{report['embedder']}, {report['seconds']} s, {report['embedded_new_texts']:,} texts "
        "embedded",
        "",
        "read: is a supporting fact ranked first? (each world's facts, one session)",
        f"{'system':<16}{'hit@1':>9}{'':>12}{'hit@3':>9}{'mrr':>9}"
        f"{'dev hit@1':>11}{'dev mrr':>9}{'held-out hit@1':>16}{'held-out mrr':>14}"
        f"{'p50 ms':>8}",
    ]
    for system, cells in rd["systems"].items():
        a, d, h = cells["all"], cells["dev"], cells["held_out"]
        lines.append(
            f"{system:<16}{_share(a, 'hit@1'):>9}{'(' + _count(a, 'hit@1') + ')':>12}"
            f"{_share(a, 'hit@3'):>9}{_share(a, 'mrr'):>9}{_share(d, 'hit@1'):>11}"
            f"{_share(d, 'mrr'):>9}{_share(h, 'hit@1'):>16}{_share(h, 'mrr'):>14}"
            f"{rd['latency_ms'][system]['p50_ms']:>8.2f}"
        )
    nxt = rd["misses_with_the_next_fact_first"]
    lines.append(
        "misses whose top hit is the fact stored right after the supporting one: "
        + ", ".join(f"{s} {n}" for s, n in nxt.items())
    )
    lines += [
        "",
        "update: does the newer (contradicting) fact outrank the stale one? (newer_wins)",
        f"{'layout':<36}{'system':<16}{'all':>8}{'':>12}{'dev':>8}{'held-out':>10}"
        f"{'newer first':>13}{'stale in top 10':>17}",
    ]
    for lay in up["layouts"].values():
        for system, cells in lay["systems"].items():
            a, d, h = cells["all"], cells["dev"], cells["held_out"]
            lines.append(
                f"{lay['label']:<36}{system:<16}{_share(a, 'newer_wins'):>8}"
                f"{'(' + _count(a, 'newer_wins') + ')':>12}{_share(d, 'newer_wins'):>8}"
                f"{_share(h, 'newer_wins'):>10}{_share(a, 'newer_first'):>13}"
                f"{_share(a, 'stale_in_top10'):>17}"
            )
    oc = report["others_corrected"]
    lines += [
        "",
        f"others corrected: is a supporting fact still first when the world's other facts were "
        f"corrected {oc['delay_days']:g} days later? ({oc['questions']:,} questions)",
        f"{'system':<16}{'hit@1':>9}{'':>12}{'dev':>8}{'held-out':>10}",
    ]
    for system, cells in oc["systems"].items():
        a, d, h = cells["all"], cells["dev"], cells["held_out"]
        lines.append(
            f"{system:<16}{_share(a, 'hit@1'):>9}{'(' + _count(a, 'hit@1') + ')':>12}"
            f"{_share(d, 'hit@1'):>8}{_share(h, 'hit@1'):>10}"
        )
    if rd["unmatched_questions"]:
        lines.append(f"\n{rd['unmatched_questions']} read questions had no update twin: skipped")
    if "losses" in report:
        lines += letta_losses.table(report["losses"])
    return "\n".join(lines)
