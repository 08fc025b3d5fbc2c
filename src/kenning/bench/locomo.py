"""``kenning bench locomo``: retrieval quality on LoCoMo, three systems side by side.

One throw-away home per conversation, filled by the LoCoMo importer
(``kenning.archive.importers.locomo``) and indexed through the engine's public API.
Every question with evidence is a query; systems in the same run:

- ``fts5_porter_or``: plain FTS5 porter over ``speaker: text``, OR of quoted
  whitespace tokens (the baseline in shared/data/locomo/NOTICE.md);
- ``dense``: the embedder alone (cosine over the engine's stored vectors);
- ``kenning``: ``SearchEngine.search`` itself, recency decay off — LoCoMo's
  sessions are dated 2022-23 and questions have no "now", so decay would only
  favour late sessions arbitrarily.

Metrics per question, averaged overall, per half, per category and without
category 5 (adversarial, whose evidence is the easiest to find): turn_recall@k
(share of evidence turns in the top k), session_hit@k (an evidence session
among the first k distinct sessions), mrr (0 beyond depth 50), and latency
p50/p95 (query vectors are warmed into the cache first, so latency is search
time). Embeddings are cached by content hash, so a re-run embeds nothing.
"""

from __future__ import annotations

import secrets
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from kenning import paths
from kenning.archive.importers.locomo import import_locomo, read_locomo
from kenning.bench.corpus import SYSTEMS, Corpus, FloorOnly
from kenning.bench.stats import p50_p95
from kenning.config import StorageConfig
from kenning.embed.base import Embedder
from kenning.embed.cache import CachedEmbedder
from kenning.search import ann
from kenning.search.engine import SearchEngine
from kenning.search.fusion import RankParams
from kenning.storage import Storage, admin, open_embedding_cache
from kenning.testing.homes import make_home

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
ADVERSARIAL = 5
METRICS = ("turn_recall@5", "turn_recall@10", "session_hit@1", "session_hit@5", "mrr")
Progress = Callable[[int], None]


@dataclass(frozen=True)
class Question:
    conv: int  # 1-based conversation number
    text: str
    category: int
    gold: frozenset[int]  # message ids
    gold_sessions: frozenset[str]


def parse_conversations(spec: str | None, available: int) -> list[int]:
    """ "1-5", "1,3,8-10" → 1-based numbers; None → all."""
    if not spec:
        return list(range(1, available + 1))
    out: list[int] = []
    for part in spec.split(","):
        lo, _, hi = part.strip().partition("-")
        if not lo.isdigit() or (hi and not hi.isdigit()):
            raise ValueError(f"bad conversation range {part!r}: use e.g. 1-5 or 1,3,7-9")
        out.extend(range(int(lo), int(hi or lo) + 1))
    bad = [n for n in out if not 1 <= n <= available]
    if bad:
        raise ValueError(f"no conversation {bad[0]}: the file has 1-{available}")
    return sorted(set(out))


def score(rank: Sequence[int], q: Question, session_of: dict[int, str]) -> dict[str, float]:
    distinct = list(dict.fromkeys(session_of[i] for i in rank if i in session_of))
    first = next((r for r, i in enumerate(rank) if i in q.gold), None)
    return {
        "turn_recall@5": len(q.gold & set(rank[:5])) / len(q.gold),
        "turn_recall@10": len(q.gold & set(rank[:10])) / len(q.gold),
        "session_hit@1": float(bool(q.gold_sessions & set(distinct[:1]))),
        "session_hit@5": float(bool(q.gold_sessions & set(distinct[:5]))),
        "mrr": 0.0 if first is None else 1.0 / (first + 1),
    }


def _conversation(root: Path, embedder: CachedEmbedder, storage: StorageConfig) -> Corpus:
    """One conversation's home, its engine (recency off) and the two baselines."""
    home = make_home(root, history=False, storage=storage)
    engine = SearchEngine(
        home.archive, embedder, params=RankParams(recency_weight=0.0), record_recalls=True
    )
    return Corpus(home.archive, engine, embedder)


def _aggregate(rows: list[dict[str, float]]) -> dict[str, float]:
    if not rows:
        return {m: 0.0 for m in METRICS} | {"n": 0}
    out = {m: round(float(np.mean([r[m] for r in rows])), 4) for m in METRICS}
    return out | {"n": len(rows)}


def _latency(samples: list[float]) -> dict[str, float]:
    p50, p95 = p50_p95(samples or [0.0])
    return {"p50_ms": round(p50, 3), "p95_ms": round(p95, 3)}


def run(
    data: Path,
    embedder: CachedEmbedder,
    *,
    conversations: str | None = None,
    progress: Progress | None = None,
    on_total: Callable[[int], None] | None = None,
    storage_url: str | None = None,
) -> dict[str, Any]:
    """Build, query and score; returns the JSON-ready report. With ``storage_url`` each
    conversation's archive is a scratch schema on that PostgreSQL server (dropped
    afterwards) instead of a ``state.db``."""
    convs = read_locomo(data)
    numbers = parse_conversations(conversations, len(convs))
    questions: list[Question] = []
    rows: dict[str, list[dict[str, float]]] = {s: [] for s in SYSTEMS}
    latency: dict[str, list[float]] = {s: [] for s in SYSTEMS}
    turns = sum(len(t) for n in numbers for _, _, t in convs[n - 1].sessions)
    asked = sum(1 for n in numbers for q in convs[n - 1].qa if q.evidence)
    foreign = {n: _foreign_questions(convs, n) for n in numbers}
    if on_total is not None:
        on_total(turns + asked + sum(len(f) for f in foreign.values()))
    started = time.perf_counter()
    dropped = 0
    pooled: list[np.ndarray] = []  # every conversation's vectors, for the prefilter check
    question_vectors: list[np.ndarray] = []
    nothing: dict[int, dict[str, list[bool]]] = {}  # conv -> own / foreign: returned nothing
    scratches: list[Storage] = []
    scratch = f"kenning_locomo_{secrets.token_hex(4)}"
    try:
        with tempfile.TemporaryDirectory(prefix="kenning-locomo-") as tmp:
            for n in numbers:
                conv = convs[n - 1]
                where = StorageConfig(storage_url or "", f"{scratch}_{n}" if storage_url else "")
                state = _conversation(Path(tmp) / f"conv{n}", embedder, where)
                if storage_url:
                    scratches.append(state.archive.storage)
                import_locomo(state.archive, data, sample_ids=[conv.sample_id])
                state.prepare(progress)
                by_dia = {
                    dia: (mid, sid)
                    for dia, mid, sid in state.archive.storage.sessions.by_meta_key("dia_id")
                }
                qs = []
                for qa in conv.qa:
                    gold = [by_dia[e] for e in qa.evidence if e in by_dia]
                    dropped += len(qa.evidence) - len(gold)
                    if gold:
                        qs.append(
                            Question(
                                n,
                                qa.question,
                                qa.category,
                                frozenset(g[0] for g in gold),
                                frozenset(g[1] for g in gold),
                            )
                        )
                question_vectors.extend(embedder.embed_queries([q.text for q in qs]))  # warm
                pooled.append(state.vectors)
                own: list[bool] = []
                for q in qs:
                    for system in SYSTEMS:
                        t0 = time.perf_counter()
                        ranking = state.rank(system, q.text)
                        latency[system].append((time.perf_counter() - t0) * 1000)
                        rows[system].append(score(ranking, q, state.session_of))
                        if system == "kenning":
                            own.append(not ranking)
                    if progress is not None:
                        progress(1)
                embedder.embed_queries(foreign[n])  # warm
                # The same engine without the abstention calibration: the rule before it.
                before = SearchEngine(
                    state.archive, FloorOnly(embedder), params=RankParams(recency_weight=0.0)
                )
                others, others_before = [], []
                for text in foreign[n]:
                    others.append(not state.kenning(text))
                    others_before.append(not before.search(text, kinds=("message",)).hits)
                    if progress is not None:
                        progress(1)
                own_before = [not before.search(q.text, kinds=("message",)).hits for q in qs]
                nothing[n] = {
                    "own": own,
                    "foreign": others,
                    "own_before": own_before,
                    "foreign_before": others_before,
                }
                questions.extend(qs)
                if progress is not None:
                    progress(sum(1 for qa in conv.qa if qa.evidence) - len(qs))
                state.close()
    finally:
        for storage in scratches:
            admin.drop_postgres_schema(storage)
    systems = {s: _aggregate(rows[s]) | _latency(latency[s]) for s in SYSTEMS}
    by_category = {
        str(c): {
            s: _aggregate([r for r, q in zip(rows[s], questions, strict=True) if q.category == c])
            for s in SYSTEMS
        }
        for c in CATEGORIES
        if any(q.category == c for q in questions)
    }
    # Conversations 1-5 were used for tuning; 6-10 are held out.
    halves = {"conv1-5": range(1, 6), "conv6-10": range(6, 11)}

    def sliced(keep: Callable[[Question], bool]) -> dict[str, dict[str, float]]:
        return {
            s: _aggregate([r for r, q in zip(rows[s], questions, strict=True) if keep(q)])
            for s in SYSTEMS
        }

    parts = {n: p for n, p in halves.items() if any(q.conv in p for q in questions)}
    slices = {name: sliced(_within(part)) for name, part in parts.items()}
    # Category 5 (adversarial) asks about things never said; its evidence is
    # the turns the trap is built on, the easiest to find, so it flatters
    # every system: the same metrics without it, overall and per half.
    plain = {"all": sliced(_within(None, adversarial=False))}
    plain |= {name: sliced(_within(part, adversarial=False)) for name, part in parts.items()}
    return {
        "questions": len(questions),
        "systems": systems,
        "by_category": by_category,
        "slices": slices,
        "without_adversarial": plain,
        "conversations": numbers,
        "turns": turns,
        "dropped_evidence_ids": dropped,
        "embedder": embedder.identity.key(),
        "abstention": _abstention(nothing, parts),
        "prefilter": _prefilter_recall(pooled, question_vectors),
        "embedded_new_texts": embedder.misses,
        "seconds": round(time.perf_counter() - started, 1),
    }


def quality_gaps(a: dict[str, Any], b: dict[str, Any]) -> dict[str, float]:
    """Per system, the largest difference between two reports on any quality metric,
    overall or in any slice (latency and counts aside)."""
    groups = [("systems", a["systems"], b["systems"])]
    for key in ("by_category", "slices", "without_adversarial"):
        groups += [(f"{key}.{k}", v, b[key][k]) for k, v in a.get(key, {}).items()]
    gaps = dict.fromkeys(SYSTEMS, 0.0)
    for _, left, right in groups:
        for system in SYSTEMS:
            for metric in METRICS:
                gap = abs(left[system][metric] - right[system][metric])
                gaps[system] = round(max(gaps[system], gap), 4)
    return gaps


def _foreign_questions(convs: Sequence[Any], n: int) -> list[str]:
    """The next conversation's questions (not category 5): about people and events
    conversation ``n`` never mentions, so search there should return nothing."""
    if len(convs) < 2:
        return []
    other = convs[n % len(convs)]
    return [qa.question for qa in other.qa if qa.evidence and qa.category != ADVERSARIAL]


def _abstention(
    nothing: dict[int, dict[str, list[bool]]], parts: dict[str, range]
) -> dict[str, dict[str, Any]]:
    """Per half: the share of foreign questions returning nothing (higher is better) and
    of the conversation's own questions returning nothing (lower is better), for
    kenning and for the same engine with only the plain relevance floor."""
    out: dict[str, dict[str, Any]] = {}
    for name, part in {"all": range(1, 10_000), **parts}.items():
        pick = {k: [x for n, v in nothing.items() if n in part for x in v[k]] for k in KEYS}
        if not pick["own"]:
            continue
        out[name] = {
            "foreign_n": len(pick["foreign"]),
            "foreign_nothing": _rate(pick["foreign"]),
            "foreign_nothing_floor_only": _rate(pick["foreign_before"]),
            "own_n": len(pick["own"]),
            "own_nothing": _rate(pick["own"]),
            "own_nothing_count": sum(pick["own"]),
            "own_nothing_floor_only": _rate(pick["own_before"]),
        }
    return out


KEYS = ("own", "foreign", "own_before", "foreign_before")


def _rate(flags: list[bool]) -> float:
    return round(sum(flags) / len(flags), 4) if flags else 0.0


def _within(part: range | None, *, adversarial: bool = True) -> Callable[[Question], bool]:
    """A question filter: in conversations ``part`` (None: any), category 5 kept or not."""

    def keep(q: Question) -> bool:
        return (part is None or q.conv in part) and (adversarial or q.category != ADVERSARIAL)

    return keep


def _prefilter_recall(pooled: list[np.ndarray], queries: list[np.ndarray]) -> dict[str, Any]:
    """How well the big-archive dense prefilter (``search.ann``) keeps the exact
    top 10 on real vectors: all conversations' messages as one matrix, every
    question, 1 % and 2 % of the rows as candidates (the engine uses 2 %)."""
    if not pooled or not queries:
        return {}
    matrix = np.concatenate(pooled).astype(np.float32)
    qs = np.asarray(queries, dtype=np.float32)
    return {
        "vectors": len(matrix),
        "queries": len(qs),
        "recall_at_10": {
            f"{share:.0%}": round(
                ann.recall_at(ann.ProjectedPrefilter(share=share, min_candidates=0), matrix, qs), 4
            )
            for share in (0.01, 0.02)
        },
    }


def table(report: dict[str, Any]) -> str:
    """The report as aligned text tables."""
    head = f"{'system':<16}" + "".join(f"{m:>16}" for m in METRICS)
    lines = [
        f"LoCoMo: {report['questions']} questions, {report['turns']} turns, conversations "
        f"{report['conversations'][0]}-{report['conversations'][-1]}, embedder "
        f"{report['embedder']}, {report['seconds']} s",
        "",
        "overall",
        head + f"{'p50_ms':>9}{'p95_ms':>9}",
    ]
    for name, m in report["systems"].items():
        cells = "".join(f"{m[k]:>16.3f}" for k in METRICS)
        lines.append(f"{name:<16}{cells}{m['p50_ms']:>9.2f}{m['p95_ms']:>9.2f}")
    groups = [(f"conv {k[4:]}", v) for k, v in report["slices"].items()]
    groups += [
        (f"without category 5 (adversarial), {'all' if k == 'all' else 'conv ' + k[4:]}", v)
        for k, v in report.get("without_adversarial", {}).items()
    ]
    groups += [(f"category {c} {CATEGORIES[int(c)]}", v) for c, v in report["by_category"].items()]
    for title, per_system in groups:
        n = next(iter(per_system.values()))["n"]
        lines += ["", f"{title} (n={n})", head]
        for name, m in per_system.items():
            lines.append(f"{name:<16}" + "".join(f"{m[k]:>16.3f}" for k in METRICS))
    abst = report.get("abstention")
    if abst:
        lines += [
            "",
            "abstention (kenning): the next conversation's questions asked here should return "
            "nothing; this conversation's own should not",
            f"{'slice':<10}{'foreign n':>10}{'nothing':>9}{'floor only':>12}{'own n':>8}"
            f"{'own nothing':>16}{'floor only':>12}",
        ]
        for name, c in abst.items():
            lines.append(
                f"{name:<10}{c['foreign_n']:>10}{c['foreign_nothing']:>9.3f}"
                f"{c['foreign_nothing_floor_only']:>12.3f}{c['own_n']:>8}"
                f"{c['own_nothing']:>10.3f} ({c['own_nothing_count']}){'':>1}"
                f"{c['own_nothing_floor_only']:>11.3f}"
            )
    pre = report.get("prefilter")
    if pre:
        shares = ", ".join(f"{v:.3f} at {k}" for k, v in pre["recall_at_10"].items())
        lines += [
            "",
            f"big-archive dense prefilter on these {pre['vectors']:,} real vectors and "
            f"{pre['queries']:,} questions: recall of the exact top 10 {shares} candidates",
        ]
    pg = report.get("postgres")
    if pg is not None:
        lines += [
            "",
            f"the same on PostgreSQL ({pg['seconds']} s)",
            head + f"{'p50_ms':>9}{'p95_ms':>9}",
        ]
        for name, m in pg["systems"].items():
            cells = "".join(f"{m[k]:>16.3f}" for k in METRICS)
            lines.append(f"{name:<16}{cells}{m['p50_ms']:>9.2f}{m['p95_ms']:>9.2f}")
        gaps = ", ".join(f"{s} {g:.4f}" for s, g in report["postgres_gap"].items())
        lines.append(f"largest gap to SQLite on any metric and slice: {gaps}")
    return "\n".join(lines)


def default_cache_path() -> Path:
    """``cache/embeddings.sqlite`` in the home: everything Kenning writes lives there."""
    return paths.home() / "cache" / "embeddings.sqlite"


def cached(embedder: Embedder, path: Path) -> CachedEmbedder:
    return CachedEmbedder(embedder, open_embedding_cache(path))
