"""``kenning bench abstain``: does search return nothing for what was never said, in every language?

The data (``bench/data/abstain``, written for Kenning, shipped with the
package so the command works from an install) is a fixed archive of six
synthetic conversations of 40 messages (two English, two Chinese, two mixing
Chinese and English), in the ``sessions import jsonl`` format, and queries in
three languages (``en``, ``zh``, ``mixed``):

- ``never``: about things never mentioned; those with ``shares`` deliberately
  share one word with the archive ("cup", "staging", "银行") — the hard ones;
- ``answerable``: with the ids of their evidence messages; those marked
  ``meaning_only`` share no content word with their evidence (paraphrases:
  found by meaning or not at all).

Queries are questions or, with ``shape: keyword``, short keyword phrases (what
a model often sends to ``session_search``); both kinds have both shapes.

Each query carries its split (dev / held_out, alternating within each
language and kind). The archive is imported through the real importer, index
and embedder (cached), with the engine's clock a day after the newest
message. Measured for ``kenning`` as it is (``SearchEngine`` with default
settings, top 10): the share of never-mentioned queries returning nothing,
and the share of answerable queries losing all their evidence from the top
10 (and how many of those returned nothing at all). Baselines from the same
run: ``floor only``, the same engine without the embedder's abstention
calibration (it abstains only when no word matched and the best cosine is
below ``relevance_floor``: the rule before calibration), FTS5 (returns
nothing only when no word matches) and the cosine floor alone (best cosine
below ``relevance_floor``, words ignored). Each query's
best cosine is reported too, per language and kind, since that is what a
per-language calibration would start from. Nothing here changes a ranking.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kenning.archive.importers.jsonl import import_jsonl
from kenning.archive.store import Archive
from kenning.bench.corpus import Corpus, FloorOnly, json_objects
from kenning.config import SearchConfig
from kenning.embed.cache import CachedEmbedder
from kenning.search.engine import SearchEngine

DATA = Path(__file__).parent / "data" / "abstain"
LANGS = ("en", "zh", "mixed")
KINDS = ("never", "answerable")
SPLITS = ("all", "dev", "held_out")
TOP = 10
Progress = Callable[[int], None]


class AbstainDataError(ValueError):
    """A query file line is malformed; the message names the file and line."""


@dataclass(frozen=True)
class Query:
    id: str
    lang: str
    kind: str
    split: str
    text: str
    evidence: tuple[str, ...] = ()
    shares: str | None = None  # the one archive word a hard never-mentioned query shares
    shape: str = "question"  # or "keyword"
    meaning_only: bool = False  # answerable, but no content word in common with the evidence


def load_queries(path: Path) -> list[Query]:
    out: list[Query] = []
    for where, row in json_objects(path, AbstainDataError):
        lang, kind, split = row.get("lang"), row.get("kind"), row.get("split")
        if lang not in LANGS or kind not in KINDS or split not in SPLITS[1:]:
            raise AbstainDataError(f"{where}: 'lang', 'kind' or 'split' is not a known value")
        evidence = row.get("evidence", [])
        if kind == "answerable" and (not isinstance(evidence, list) or not evidence):
            raise AbstainDataError(f"{where}: an answerable query needs its 'evidence' ids")
        if not isinstance(row.get("query"), str) or not isinstance(row.get("id"), str):
            raise AbstainDataError(f"{where}: 'id' and 'query' must be strings")
        shape = row.get("shape", "question")
        if shape not in ("question", "keyword"):
            raise AbstainDataError(f"{where}: 'shape' must be 'question' or 'keyword'")
        out.append(
            Query(
                row["id"],
                lang,
                kind,
                split,
                row["query"],
                tuple(evidence),
                row.get("shares"),
                shape,
                row.get("meaning_only") is True,
            )
        )
    return out


def run(
    embedder: CachedEmbedder,
    *,
    data: Path = DATA,
    progress: Progress | None = None,
    on_total: Callable[[int], None] | None = None,
) -> dict[str, Any]:
    """Import the archive, ask every query; the JSON-ready report."""
    queries = load_queries(data / "queries.jsonl")
    if on_total is not None:
        on_total(len(queries))
    started = time.perf_counter()
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="kenning-abstain-") as tmp:
        archive = Archive(Path(tmp) / "state.db")
        import_jsonl(archive, data / "archive.jsonl")
        sessions = archive.storage.sessions
        by_ref = {ref: mid for ref, mid, _ in sessions.by_meta_key("id")}
        newest = sessions.newest_message_at()
        now = float(newest or 0.0) + 86_400.0
        engine = SearchEngine(archive, embedder, SearchConfig(), clock=lambda: now)
        corpus = Corpus(archive, engine, embedder)
        corpus.prepare()
        before = SearchEngine(archive, FloorOnly(embedder), SearchConfig(), clock=lambda: now)
        embedder.embed_queries([q.text for q in queries])  # warm
        floor = embedder.relevance_floor
        for q in queries:
            missing = [e for e in q.evidence if e not in by_ref]
            if missing:
                raise AbstainDataError(f"{q.id}: evidence {missing} is not in the archive")
            hits = [h.id for h in engine.search(q.text, kinds=("message",), limit=TOP).hits]
            old = [h.id for h in before.search(q.text, kinds=("message",), limit=TOP).hits]
            cos = corpus.best_cosine(q.text)
            fts = corpus.fts5_porter_or(q.text)[:TOP]
            gold = {by_ref[e] for e in q.evidence}
            rows.append(
                {
                    "id": q.id,
                    "lang": q.lang,
                    "kind": q.kind,
                    "split": q.split,
                    "query": q.text,
                    "shares": q.shares,
                    "shape": q.shape,
                    "meaning_only": q.meaning_only,
                    "hits": len(hits),
                    "floor_only_hits": len(old),
                    "best_cosine": round(cos, 4),
                    "fts5_hits": len(fts),
                    "below_floor": floor is not None and cos < floor,
                    "evidence_rank": _rank(hits, gold),
                    "floor_only_evidence_rank": _rank(old, gold),
                    "fts5_evidence_rank": _rank(fts, gold),
                    "dense_evidence_rank": _rank(corpus.dense(q.text)[:TOP], gold),
                }
            )
            if progress is not None:
                progress(1)
        messages = len(by_ref)
        corpus.close()
    return {
        "messages": messages,
        "queries": len(queries),
        "floor": floor,
        "never": {lang: _never(rows, lang) for lang in LANGS},
        "answerable": {lang: _answerable(rows, lang) for lang in LANGS},
        "best_cosine": {
            lang: {kind: _spread(_pick(rows, lang, kind, "all")) for kind in KINDS}
            for lang in LANGS
        },
        "per_query": rows,
        "embedder": embedder.identity.key(),
        "embedded_new_texts": embedder.misses,
        "seconds": round(time.perf_counter() - started, 1),
    }


def _rank(ranking: list[int], gold: set[int]) -> int | None:
    """1-based rank of the first evidence message, None when none is returned."""
    return next((r for r, i in enumerate(ranking, 1) if i in gold), None)


def _pick(rows: list[dict[str, Any]], lang: str, kind: str, split: str) -> list[dict[str, Any]]:
    return [
        r for r in rows if r["lang"] == lang and r["kind"] == kind and split in ("all", r["split"])
    ]


def _share(rows: list[dict[str, Any]], test: Callable[[dict[str, Any]], bool]) -> float:
    return round(sum(1 for r in rows if test(r)) / len(rows), 4) if rows else 0.0


def _never(rows: list[dict[str, Any]], lang: str) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for split in SPLITS:
        picked = _pick(rows, lang, "never", split)
        hard = [r for r in picked if r["shares"]]
        keyword = [r for r in picked if r["shape"] == "keyword"]
        out[split] = {
            "n": len(picked),
            "kenning_nothing": _share(picked, lambda r: r["hits"] == 0),
            "kenning_nothing_count": sum(1 for r in picked if r["hits"] == 0),
            "hard_n": len(hard),
            "kenning_nothing_hard": _share(hard, lambda r: r["hits"] == 0),
            "floor_only_nothing": _share(picked, lambda r: r["floor_only_hits"] == 0),
            "keyword_n": len(keyword),
            "kenning_nothing_keyword": _share(keyword, lambda r: r["hits"] == 0),
            "fts5_nothing": _share(picked, lambda r: r["fts5_hits"] == 0),
            "floor_alone_nothing": _share(picked, lambda r: r["below_floor"]),
        }
    return out


def _answerable(rows: list[dict[str, Any]], lang: str) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for split in SPLITS:
        picked = _pick(rows, lang, "answerable", split)
        meaning = [r for r in picked if r["meaning_only"]]
        out[split] = {
            "n": len(picked),
            "kenning_lost": _share(picked, lambda r: r["evidence_rank"] is None),
            "kenning_lost_count": sum(1 for r in picked if r["evidence_rank"] is None),
            "kenning_nothing": _share(picked, lambda r: r["hits"] == 0),
            "kenning_first": _share(picked, lambda r: r["evidence_rank"] == 1),
            "floor_only_lost": _share(picked, lambda r: r["floor_only_evidence_rank"] is None),
            "meaning_n": len(meaning),
            "kenning_lost_meaning": _share(meaning, lambda r: r["evidence_rank"] is None),
            "floor_only_lost_meaning": _share(
                meaning, lambda r: r["floor_only_evidence_rank"] is None
            ),
            "fts5_lost": _share(picked, lambda r: r["fts5_evidence_rank"] is None),
            "dense_lost": _share(picked, lambda r: r["dense_evidence_rank"] is None),
        }
    return out


def _spread(rows: list[dict[str, Any]]) -> dict[str, float]:
    values = sorted(r["best_cosine"] for r in rows)
    if not values:
        return {}
    return {
        "min": values[0],
        "median": round(statistics.median(values), 4),
        "max": values[-1],
    }


def table(report: dict[str, Any]) -> str:
    floor = report["floor"]
    lines = [
        f"Abstention: {report['messages']} messages (English, Chinese, mixed), "
        f"{report['queries']} queries, embedder {report['embedder']}, floor {floor}, "
        f"{report['seconds']} s",
        "",
        "never mentioned: share of queries returning nothing (higher is better)",
        f"{'lang':<7}{'split':<10}{'n':>4}{'kenning':>9}{'':>9}{'hard n':>8}{'hard':>8}"
        f"{'keyword n':>10}{'keyword':>9}{'floor only':>12}{'fts5':>8}{'floor alone':>13}",
    ]
    for lang in LANGS:
        for split in SPLITS:
            c = report["never"][lang][split]
            lines.append(
                f"{lang:<7}{split:<10}{c['n']:>4}{c['kenning_nothing']:>9.4f}"
                f"{'(' + str(c['kenning_nothing_count']) + '/' + str(c['n']) + ')':>9}"
                f"{c['hard_n']:>8}{c['kenning_nothing_hard']:>8.4f}"
                f"{c['keyword_n']:>10}{c['kenning_nothing_keyword']:>9.4f}"
                f"{c['floor_only_nothing']:>12.4f}{c['fts5_nothing']:>8.4f}"
                f"{c['floor_alone_nothing']:>13.4f}"
            )
    lines += [
        "",
        "answerable: share losing all evidence from the top 10 (lower is better)",
        f"{'lang':<7}{'split':<10}{'n':>4}{'kenning':>9}{'':>9}{'returned nothing':>18}"
        f"{'evidence first':>16}{'floor only':>12}{'meaning n':>11}{'meaning':>9}"
        f"{'floor only':>12}{'fts5':>8}{'dense':>8}",
    ]
    for lang in LANGS:
        for split in SPLITS:
            c = report["answerable"][lang][split]
            lines.append(
                f"{lang:<7}{split:<10}{c['n']:>4}{c['kenning_lost']:>9.4f}"
                f"{'(' + str(c['kenning_lost_count']) + '/' + str(c['n']) + ')':>9}"
                f"{c['kenning_nothing']:>18.4f}{c['kenning_first']:>16.4f}"
                f"{c['floor_only_lost']:>12.4f}{c['meaning_n']:>11}"
                f"{c['kenning_lost_meaning']:>9.4f}{c['floor_only_lost_meaning']:>12.4f}"
                f"{c['fts5_lost']:>8.4f}{c['dense_lost']:>8.4f}"
            )
    lines += ["", "best cosine over the archive (min / median / max)"]
    for lang in LANGS:
        cells = report["best_cosine"][lang]
        text = "   ".join(
            f"{kind} {c['min']:.3f} / {c['median']:.3f} / {c['max']:.3f}"
            for kind, c in cells.items()
            if c
        )
        lines.append(f"{lang:<7}{text}")
    return "\n".join(lines)
