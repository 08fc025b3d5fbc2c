"""``kenning bench when``: do a query's time words ("now", "in 2023", 去年, "before …") help?

The data (``bench/data/when``, written for Kenning, shipped with the
package) is an archive in the ``sessions import jsonl`` format where six
facts per language (English, Chinese) change twice — a job, a city, a port,
a car, a sport, a manager — each state said in its own session: February or
May 2023, March 2024, April 2025, plus a newest session of unrelated talk.
Queries carry the id of the one message that answers them and a kind:

- ``recent``: "what is X now / currently / these days", 现在 / 目前 / 还…吗;
- ``range``: "in 2023", "last year", "in March 2024", "two years ago",
  "last month", 2023年, 去年, 上个月;
- ``before``: "before I joined Fabrikam", 集群重建之前.

``split`` alternates dev / held_out within each language. The archive goes
through the real importer, index and embedder (cached); the engine's clock
is a day after the newest message. Measured in the same run: hit@1 (the
answer ranked first) and hit@3 for ``SearchEngine`` with its time intent
off (``time_*_weight`` 0: the query is searched as plain words, with the
usual recency) and on (the defaults), per language, kind and split.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from kenning.archive.importers.jsonl import import_jsonl
from kenning.archive.store import Archive
from kenning.bench.corpus import Corpus, first_rank, json_objects
from kenning.config import SearchConfig
from kenning.embed.cache import CachedEmbedder
from kenning.search.engine import SearchEngine
from kenning.search.fusion import RankParams

DATA = Path(__file__).parent / "data" / "when"
LANGS = ("en", "zh")
KINDS = ("recent", "range", "before")
SPLITS = ("all", "dev", "held_out")
SYSTEMS = ("without_time", "with_time")
TOP = 10
Progress = Callable[[int], None]


class WhenDataError(ValueError):
    """A query file line is malformed; the message names the file and line."""


@dataclass(frozen=True)
class Query:
    id: str
    lang: str
    kind: str
    split: str
    text: str
    evidence: tuple[str, ...]


def load_queries(path: Path) -> list[Query]:
    out: list[Query] = []
    for where, row in json_objects(path, WhenDataError):
        lang, kind, split = row.get("lang"), row.get("kind"), row.get("split")
        if lang not in LANGS or kind not in KINDS or split not in SPLITS[1:]:
            raise WhenDataError(f"{where}: 'lang', 'kind' or 'split' is not a known value")
        evidence = row.get("evidence")
        if not isinstance(evidence, list) or not evidence:
            raise WhenDataError(f"{where}: a query needs its 'evidence' ids")
        if not isinstance(row.get("query"), str) or not isinstance(row.get("id"), str):
            raise WhenDataError(f"{where}: 'id' and 'query' must be strings")
        out.append(Query(row["id"], lang, kind, split, row["query"], tuple(evidence)))
    return out


def run(
    embedder: CachedEmbedder,
    *,
    data: Path = DATA,
    params: RankParams | None = None,
    progress: Progress | None = None,
    on_total: Callable[[int], None] | None = None,
) -> dict[str, Any]:
    """Import the archive, ask every query with the time intent off and on
    (``params``: the ranking with it on, default ``RankParams()``)."""
    queries = load_queries(data / "queries.jsonl")
    if on_total is not None:
        on_total(len(queries))
    started = time.perf_counter()
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="kenning-when-") as tmp:
        archive = Archive(Path(tmp) / "state.db")
        import_jsonl(archive, data / "archive.jsonl")
        sessions = archive.storage.sessions
        by_ref = {ref: mid for ref, mid, _ in sessions.by_meta_key("id")}
        newest = sessions.newest_message_at()
        now = float(newest or 0.0) + 86_400.0
        with_time = SearchEngine(
            archive, embedder, SearchConfig(), params=params, clock=lambda: now
        )
        plain = replace(with_time.params, time_recent_weight=0.0, time_range_weight=0.0)
        engines = {
            "without_time": SearchEngine(
                archive, embedder, SearchConfig(), params=plain, clock=lambda: now
            ),
            "with_time": with_time,
        }
        corpus = Corpus(archive, with_time, embedder)
        corpus.prepare()
        embedder.embed_queries([q.text for q in queries])  # warm
        for q in queries:
            missing = [e for e in q.evidence if e not in by_ref]
            if missing:
                raise WhenDataError(f"{q.id}: evidence {missing} is not in the archive")
            gold = {by_ref[e] for e in q.evidence}
            row: dict[str, Any] = {
                "id": q.id,
                "lang": q.lang,
                "kind": q.kind,
                "split": q.split,
                "query": q.text,
            }
            for name, engine in engines.items():
                result = engine.search(q.text, kinds=("message",), limit=TOP)
                row[name] = first_rank([h.id for h in result.hits], gold)
                if name == "with_time":
                    row["time"] = result.time
            rows.append(row)
            if progress is not None:
                progress(1)
        messages = len(by_ref)
        corpus.close()
    return {
        "messages": messages,
        "queries": len(queries),
        "results": {
            lang: {
                split: {kind: _cell(rows, lang, kind, split) for kind in ("all", *KINDS)}
                for split in SPLITS
            }
            for lang in LANGS
        },
        "per_query": rows,
        "embedder": embedder.identity.key(),
        "embedded_new_texts": embedder.misses,
        "seconds": round(time.perf_counter() - started, 1),
    }


def _cell(rows: list[dict[str, Any]], lang: str, kind: str, split: str) -> dict[str, Any]:
    picked = [
        r
        for r in rows
        if r["lang"] == lang and kind in ("all", r["kind"]) and split in ("all", r["split"])
    ]
    out: dict[str, Any] = {"n": len(picked)}
    for name in SYSTEMS:
        for k in (1, 3):
            hit = sum(1 for r in picked if r[name] is not None and r[name] < k)
            out[f"{name}_hit@{k}"] = round(hit / len(picked), 4) if picked else 0.0
    return out


def table(report: dict[str, Any]) -> str:
    lines = [
        f"Time-aware queries: {report['messages']} messages (English, Chinese), "
        f"{report['queries']} queries, embedder {report['embedder']}, {report['seconds']} s",
        "",
        "hit@1 (hit@3) of the answer, kenning without vs with the time intent",
        f"{'lang':<6}{'split':<10}{'kind':<8}{'n':>4}{'without':>16}{'with':>16}",
    ]
    for lang in LANGS:
        for split in SPLITS:
            for kind in ("all", *KINDS):
                c = report["results"][lang][split][kind]
                cells = [f"{c[f'{s}_hit@1']:.3f} ({c[f'{s}_hit@3']:.3f})" for s in SYSTEMS]
                lines.append(
                    f"{lang:<6}{split:<10}{kind:<8}{c['n']:>4}{cells[0]:>16}{cells[1]:>16}"
                )
    return "\n".join(lines)
