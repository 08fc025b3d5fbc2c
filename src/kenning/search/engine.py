"""``SearchEngine``: one hybrid search over archived messages and memory chunks.

Pipeline: stopword-filtered OR-of-quoted-terms FTS5 (bm25 with
the previous message as a .35-weighted column, near-stopwords pruned by
document frequency) + cosine over all vectors, exact or, above
``search.approximate_above`` vectors, through a projected prefilter
(``search.ann``) or, with ``search.vector_index``, the database's own index
(pgvector's HNSW) (top-200 pool) →
candidates and their session neighbours → score fusion, neighbour smoothing
and session boost (``fusion``) → automated-source penalty and recency, or
what the query's time words ask for ("now", "in 2023", "before the move":
``when``) → optional MMR → top ``limit``.

Invariants: any string is a valid query (never an FTS syntax error); scope
filters are applied by the storage on both retrievers, so results never
leak out of scope; a query whose words match nothing and whose best cosine
is below the embedder's floor returns no hits; vectors of another embedder
identity are never used (keyword mode, with a note saying how to rebuild);
every search is recorded in ``recalls`` with what it returned; compacted
messages are searched like any other.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from kenning import clock
from kenning.config import SearchConfig
from kenning.embed.base import Embedder, EmbedderError, Progress
from kenning.paths import HomeLayout
from kenning.search import abstain, ann, fusion, index, lexical, speakers, supersede, when
from kenning.search import chunks as chunks_mod
from kenning.search.meta import CandidateMeta
from kenning.storage import Storage, StorageUnavailable
from kenning.storage.query import (
    KINDS,
    IndexReport,
    Kind,
    SearchFilters,
    SearchHit,
    SearchResult,
)
from kenning.storage.text import query_terms

# What ``explain`` reports, in the order the scorers apply them.
_PARTS = (
    "lexical",  # bm25 over the best bm25 among the candidates, 0..1
    "dense",  # the cosine stretched so the pool's best is 1 and its floor 0
    "cosine",  # the raw query cosine
    "fused",  # w_lex * lexical + (1 - w_lex) * dense
    "with_context",  # + neighbour and same-session boost, scaled back to 0..1
    "automated_penalty",  # the factor for a reviewer's or a cron job's message (1 = none)
    "time",  # recency, or what the query's time words ask for
    "score",  # the product, before supersession, the relative floor and MMR reorder
)


@dataclass
class _Side:
    """One kind's retrieval results before fusion."""

    lex: dict[int, float]  # id -> bm25 / best bm25
    cos: dict[int, float]  # id -> cosine, for the dense pool
    pool: np.ndarray  # the pool's cosines (for the shared min-max)
    searched: int = 0  # vectors the query was compared with (in scope)


class SearchEngine:
    # From this many message vectors on, the dense side runs on a worker thread beside
    # FTS5 (see ``_start_dense``); below it the thread costs more than it hides.
    overlap_above = 50_000

    def __init__(
        self,
        archive: Any,
        embedder: Embedder | None = None,
        config: SearchConfig | None = None,
        *,
        layout: HomeLayout | None = None,
        params: fusion.RankParams | None = None,
        record_recalls: bool = True,
        clock: Callable[[], float] = clock.timestamp,
    ) -> None:
        """``archive`` is an ``Archive`` or a ``kenning.storage.Storage``.

        ``layout`` enables the memory-file chunk index; ``params`` overrides the
        ranking (the config's recency and MMR settings apply otherwise).
        """
        self.storage: Storage = getattr(archive, "storage", archive)
        self.embedder = embedder
        self.config = config or SearchConfig()
        self.layout = layout
        self.params = params or fusion.RankParams(
            recency_weight=self.config.recency_weight,
            recency_half_life_days=self.config.recency_half_life_days,
            mmr_lambda=self.config.mmr_lambda,
        )
        self.record_recalls = record_recalls
        self.clock = clock
        self._messages = index.VectorSet("message")
        self._chunks = index.VectorSet("chunk")
        self._ann = ann.ProjectedPrefilter()
        self._worker: ThreadPoolExecutor | None = None  # dense search beside FTS5, big archives
        self._doc_count: tuple[bytes | None, int] | None = None  # (index fingerprint, count)
        self._candidates = CandidateMeta()
        self._index_behind = False  # this search could not sync the text index
        self._term_docs: dict[str, int] = {}  # FTS token -> body docs, until the index changes
        # (kind, id) -> the parts of its score, filled by the scorers while ``explain`` runs
        self._parts: dict[tuple[Kind, int], dict[str, float]] | None = None

    def close(self) -> None:
        """Stop the dense-search worker thread, if one was started; idempotent."""
        if self._worker is not None:
            self._worker.shutdown(wait=True)
            self._worker = None

    # -- indexing ------------------------------------------------------------

    def index_pending(
        self, *, progress: Progress | None = None, batch: int = 64, reembed: bool = False
    ) -> IndexReport:
        """Bring the index fully up to date: FTS rows, chunks, every missing vector.

        Vectors from another embedder raise ``IndexIdentityError`` (saying how to
        rebuild) unless ``reembed`` is true, which drops them and embeds afresh.
        """
        vectors = self.storage.vectors
        if reembed and self.embedder and vectors.check_identity(self.embedder):
            vectors.reset(self.embedder)
        fts = self.storage.index.sync()
        written = self._sync_chunks().chunks_written if self.layout is not None else 0
        notes: list[str] = []
        embedded = chunk_vectors = 0
        if self.embedder is None:
            notes.append("no embedder configured: keyword index only")
        else:
            embedded = vectors.embed_pending(self.embedder, batch=batch, progress=progress)
            chunk_vectors = vectors.embed_chunks(self.embedder)
        return IndexReport(fts, embedded, written, chunk_vectors, notes)

    def rebuild(self, *, progress: Progress | None = None, batch: int = 64) -> IndexReport:
        """Drop and rebuild FTS rows and vectors (for the current embedder identity)."""
        self.storage.index.reset()
        self.storage.vectors.reset(self.embedder)
        return self.index_pending(progress=progress, batch=batch)

    def pending(self) -> tuple[int, int]:
        """(messages without FTS rows, messages without vectors)."""
        return self.storage.index.pending(), self.storage.vectors.pending()

    def _sync_chunks(self) -> chunks_mod.ChunkSync:
        assert self.layout is not None
        return chunks_mod.sync(
            self.storage,
            self.layout,
            self.config.extra_paths,
            tokens=self.config.chunk_tokens,
            overlap=self.config.chunk_overlap,
        )

    def _catch_up(self, kinds: Sequence[Kind], notes: list[str]) -> bool:
        """Cheap pre-search indexing; returns whether dense search may run."""
        self._index_behind = False
        try:
            self.storage.index.sync()
            if "chunk" in kinds and self.layout is not None:
                self._sync_chunks()
        except StorageUnavailable as exc:
            self._index_behind = True  # not writable now (read-only): keyword-match the queue
            notes.append(f"the index could not be updated ({exc}); new messages: keywords only")
        if self.embedder is None:
            notes.append("keyword-only search: no embedder is configured")
            return False
        vectors = self.storage.vectors
        problem = vectors.check_identity(self.embedder)
        if problem:
            notes.append(f"keyword-only search: {problem}")
            return False
        try:
            backlog = vectors.pending()
            # Not stored either when the index could not be: only the query is embedded.
            if 0 < backlog <= self.config.embed_on_search and not self._index_behind:
                vectors.embed_pending(self.embedder)
            elif backlog:
                notes.append(
                    f"{backlog} messages are not embedded yet and were matched by keyword "
                    "only; run `kenning index` to embed them"
                )
            if "chunk" in kinds and self.layout is not None:
                waiting = vectors.pending_chunks()
                if 0 < waiting <= self.config.embed_on_search:
                    vectors.embed_chunks(self.embedder)
                elif waiting:
                    notes.append(f"{waiting} memory chunks are not embedded yet")
        except (EmbedderError, StorageUnavailable) as exc:
            notes.append(f"new items were not embedded ({exc})")
        return True

    # -- search --------------------------------------------------------------

    def search(
        self,
        query: str,
        *,
        kinds: Sequence[str] = KINDS,
        limit: int = 10,
        filters: SearchFilters | None = None,
    ) -> SearchResult:
        """Up to ``limit`` hits of the given kinds ("message", "chunk"), best first."""
        unknown = set(kinds) - set(KINDS)
        if unknown:
            raise ValueError(f"unknown search kinds {sorted(unknown)}; use {list(KINDS)}")
        scope = filters or SearchFilters()
        wanted: tuple[Kind, ...] = tuple(k for k in KINDS if k in kinds)
        notes: list[str] = []
        if "chunk" in wanted and self.layout is None:
            wanted = tuple(k for k in wanted if k != "chunk")
        dense = self._catch_up(wanted, notes)
        timing = when.timing(
            query, self.clock(), self.params, lambda e: self._event_time(e, scope), notes
        )
        terms = query_terms(query)
        qvec = None
        if dense and self.embedder is not None and query.strip():
            try:
                # float32 like the matrix: a float64 query would upcast all n rows
                qvec = np.asarray(self.embedder.embed_query(query), dtype=np.float32)
            except EmbedderError as exc:
                notes.append(f"keyword-only search: the embedder failed ({exc})")
        sides: dict[str, _Side] = {}
        if "message" in wanted:
            sides["message"] = self._message_side(terms, qvec, scope)
        if "chunk" in wanted:
            sides["chunk"] = self._chunk_side(terms, qvec, scope)
        mode = "hybrid" if qvec is not None else "keyword"
        pooled = np.sort(np.concatenate([s.pool for s in sides.values()] or [np.zeros(0)]))[::-1]
        floor = self.embedder.relevance_floor if self.embedder is not None else None
        no_words = not any(s.lex for s in sides.values())
        if no_words and (not len(pooled) or (floor is not None and pooled[0] < floor)):
            return self._finish(query, [], mode, notes, scope)
        hi = float(pooled[0]) if len(pooled) else 0.0
        lo = fusion.pool_floor(pooled, sum(s.searched for s in sides.values()), self.params)
        scored: list[tuple[float, Kind, int]] = []
        facts: dict[int, tuple[float, float]] = {}
        if "message" in sides:
            scored += self._score_messages(
                query, sides["message"], hi, lo, qvec, scope, facts, timing
            )
        if "chunk" in sides:
            scored += self._score_chunks(sides["chunk"], hi, lo, timing)
        # Score 0: no word matched and the cosine is at or below the dense scale's floor: noise.
        scored = sorted((t for t in scored if t[0] > 1e-9), key=lambda t: -t[0])
        scored, later = supersede.rerank(
            self.storage.index,
            self._messages if self.embedder else None,
            query,
            scored,
            facts,
            self.params,
        )
        if scored:
            cut = scored[0][0] * self.params.relative_floor
            scored = [t for t in scored if t[0] >= cut]
        if self.embedder is not None:
            stores = (("message", self._messages), ("chunk", self._chunks))
            scored = fusion.diversify(scored, limit, self.params.mmr_lambda, stores)
        hits = self.storage.index.hits(scored[: max(0, limit)])
        shown = {h.id for h in hits if h.kind == "message"}
        hits = [
            replace(h, superseded_by=later[h.id])
            if h.kind == "message" and later.get(h.id) in shown
            else h
            for h in hits
        ]
        if qvec is not None and hits and self._abstains(query, terms, no_words, pooled, hits):
            notes.append(
                "nothing in the archive is close enough to this query to count as a match; "
                "it was probably never discussed (rephrase with the words used then to check)"
            )
            hits = []
        return self._finish(query, hits, mode, notes, scope, timing)

    def explain(
        self,
        query: str,
        kind: Kind,
        item_id: int,
        *,
        kinds: Sequence[str] = KINDS,
        limit: int = 10,
        filters: SearchFilters | None = None,
    ) -> dict[str, float] | None:
        """How the same search scored one hit: the parts of its score, or None if it
        was not a candidate. The search runs again, unrecorded, with the scorers
        noting what each candidate got: lexical (bm25 / best), dense (the cosine
        stretched over the pool), their fusion, the neighbour and session boost,
        the automated-source penalty, the time factor, then the final score."""
        recording, self.record_recalls, self._parts = self.record_recalls, False, {}
        try:
            self.search(query, kinds=kinds, limit=limit, filters=filters)
            return self._parts.get((kind, item_id))
        finally:
            self.record_recalls, self._parts = recording, None

    def _event_time(self, event: str, scope: SearchFilters) -> float | None:
        """When ``event`` ("the move") was said: its best message hit, looked up
        in the same scope and not recorded as a recall."""
        recording, self.record_recalls = self.record_recalls, False
        try:
            hits = self.search(event, kinds=("message",), limit=1, filters=scope).hits
        finally:
            self.record_recalls = recording
        return hits[0].created_at if hits else None

    def _abstains(
        self,
        query: str,
        terms: list[str],
        no_words: bool,
        pooled: np.ndarray,
        hits: list[SearchHit],
    ) -> bool:
        """Whether the hits are only the nearest of nothing (see ``search.abstain``):
        the embedder's plain relevance floor (no word matched, best cosine below
        it), and where it knows the language, its calibration too."""
        if self.embedder is None or not len(pooled):
            return False  # no vector compared (none embedded yet): keyword matches stand
        best_cosine = float(pooled[0])
        floor = self.embedder.relevance_floor
        # The plain floor always holds: with no word matched anywhere, a cosine under
        # it is gibberish-level (its LoCoMo study), whatever a language floor says.
        if no_words and floor is not None and best_cosine < floor:
            return True
        calibration = self.embedder.abstention
        if calibration is None or not abstain.judges(calibration, query):
            return False
        best = abstain.hit_coverage(
            self.storage.index, terms, hits, self._n_docs(), self._term_docs
        )
        top = hits[0].content if hits[0].kind == "message" else hits[0].text
        return bool(abstain.verdict(calibration, query, best_cosine, top, best))

    def _n_docs(self) -> int:
        """Documents in the message index, counted again only when it changed
        (its ``fingerprint``: counting is O(n), ~0.5 ms at 100k, 5 at 1M)."""
        key = self.storage.index.fingerprint()
        if self._doc_count is None or key is None or self._doc_count[0] != key:
            self._doc_count = (key, self.storage.index.doc_count())
            self._term_docs.clear()  # document frequencies moved with it
        return self._doc_count[1]

    def _message_side(
        self, terms: list[str], qvec: np.ndarray | None, scope: SearchFilters
    ) -> _Side:
        dense: tuple[np.ndarray, np.ndarray] | Future[tuple[np.ndarray, np.ndarray]] | None = None
        searched = 0
        if qvec is not None and self.embedder is not None:
            self._messages.refresh(self.storage.vectors, self.embedder.identity.dims)
            if len(self._messages):
                mask = self._scope_mask(scope)
                searched = len(self._messages) if mask is None else int(np.count_nonzero(mask))
                dense = self._start_dense(qvec, mask, scope)
        n_docs = self._n_docs()  # first: it clears the stale counts
        text_index = self.storage.index
        kept = lexical.prune_terms(text_index, "message", terms, n_docs, self._term_docs)
        rows = text_index.match_messages(kept, scope, lexical.LEX_LIMIT)
        best = max((s for _, s in rows), default=0.0)
        lex = {i: s / best for i, s in rows} if best > 0 else {i: 1.0 for i, _ in rows}
        if self._index_behind:
            lex |= lexical.pending_scores(text_index, kept, scope, n_docs, self._term_docs)
        power = self.params.lex_confidence_power
        if power > 0 and rows:
            counts = text_index.term_doc_counts("message", terms, self._term_docs)
            weights = abstain.idf_weights(counts, n_docs)
            leaders = [i for i, _ in rows[: self.params.lex_confidence_top]]
            covered = abstain.coverage(text_index, "message", terms, weights, leaders)
            confidence = min(1.0, covered / self.params.lex_confidence_full) ** power
            lex = {i: v * confidence for i, v in lex.items()}
        if dense is None:
            return _Side(lex, {}, np.zeros(0))
        top, cos = dense.result() if isinstance(dense, Future) else dense
        ids = self._messages.ids[top]
        return _Side(lex, dict(zip(ids.tolist(), cos.tolist(), strict=True)), cos, searched)

    def _scope_mask(self, scope: SearchFilters) -> np.ndarray | None:
        """Which vector rows the scope allows (None: all)."""
        if scope.is_empty():
            return None
        allowed = np.fromiter(self.storage.sessions.ids_in(scope), np.int64)
        pos = self._messages.positions(allowed)
        mask = np.zeros(len(self._messages), dtype=bool)
        mask[pos[pos >= 0]] = True
        return mask

    def _start_dense(
        self, qvec: np.ndarray, mask: np.ndarray | None, scope: SearchFilters
    ) -> tuple[np.ndarray, np.ndarray] | Future[tuple[np.ndarray, np.ndarray]]:
        """The dense pool now, or — for a big archive — a future computing it on a worker
        thread while FTS5 runs on this one: numpy's loops and SQLite both release the GIL.
        Measured by ``kenning bench scale``-style runs: hybrid p50 at 100k messages 17.3 ->
        12.7-13.5 ms, at 1M (with the prefilter) 92 -> 64 ms. The dense side uses einsum
        rather than BLAS for this: OpenBLAS spreads a product over both cores and keeps its
        threads spinning, which took the CPU from SQLite and cancelled the gain.

        With ``search.vector_index`` and a database that keeps a vector index, the approximate
        pool comes from it on this thread (the backend's one connection must not run statements
        from two threads at once), rescored exactly here."""
        if self._approximate() and not self._narrow(mask):
            k, vectors = self.params.dense_pool, self.storage.vectors
            found = vectors.indexed_nearest(qvec, k, scope) if self.config.vector_index else None
            if found is not None:
                return self._rescored(found, qvec, k)
            # the only mutation: here, never on the worker
            self._ann.sync(self._messages.matrix, self._messages.generation)
        if len(self._messages) < self.overlap_above:
            return self._dense_top(qvec, mask)
        if self._worker is None:
            self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="kenning-dense")
        return self._worker.submit(self._dense_top, qvec, mask)

    def _approximate(self) -> bool:
        return 0 < self.config.approximate_above <= len(self._messages)

    def _narrow(self, mask: np.ndarray | None) -> bool:
        """Whether the scope allows so few rows that scoring them all is cheapest."""
        return mask is not None and int(np.count_nonzero(mask)) * 8 <= len(mask)

    def _rescored(
        self, found: list[tuple[int, float]], qvec: np.ndarray, k: int
    ) -> tuple[np.ndarray, np.ndarray]:
        """(matrix rows, cosines) of the index's ids, best first: the cosines come
        from the matrix, bit for bit what the exact scan gives; an id stored
        after the matrix was refreshed is left out, as the exact scan would."""
        ids = np.fromiter((i for i, _ in found), np.int64, len(found))
        rows = self._messages.positions(ids)
        rows = rows[rows >= 0]
        cos = ann.rescore(self._messages.matrix, rows, qvec)
        best = ann.select_top(cos, k)
        return rows[best], cos[best]

    def _dense_top(
        self, qvec: np.ndarray, mask: np.ndarray | None
    ) -> tuple[np.ndarray, np.ndarray]:
        """(matrix rows, exact cosines) of the dense pool, best first, inside ``mask``.

        Exact below ``search.approximate_above`` vectors; above it the
        projected prefilter picks the rows to score (``search.ann``). A
        narrow scope is scored exactly on its own rows either way.
        """
        matrix, k = self._messages.matrix, self.params.dense_pool
        if mask is not None and self._narrow(mask):
            allowed = np.flatnonzero(mask)
            cos = np.einsum("ij,j->i", matrix[allowed], qvec)
            best = ann.select_top(cos, k)
            return allowed[best], cos[best]
        if self._approximate():
            return self._ann.top(matrix, qvec, k, mask)
        cos = np.einsum("ij,j->i", matrix, qvec)  # not BLAS: see _start_dense
        if mask is not None:
            cos = np.where(mask, cos, -np.inf)
        best = ann.select_top(cos, k)
        return best, cos[best]

    def _chunk_side(self, terms: list[str], qvec: np.ndarray | None, scope: SearchFilters) -> _Side:
        rows = self.storage.index.match_chunks(terms, scope, lexical.LEX_LIMIT)
        best = max((s for _, s in rows), default=0.0)
        lex = {i: s / best for i, s in rows} if best > 0 else {i: 1.0 for i, _ in rows}
        if qvec is None or self.embedder is None:
            return _Side(lex, {}, np.zeros(0))
        self._chunks.refresh(self.storage.vectors, self.embedder.identity.dims)
        if not len(self._chunks):
            return _Side(lex, {}, np.zeros(0))
        allowed = self.storage.chunks.ids_in(scope)
        cos = self._chunks.matrix @ qvec
        keep = [i for i, cid in enumerate(self._chunks.ids.tolist()) if cid in allowed]
        top = sorted(keep, key=lambda i: -cos[i])[: self.params.dense_pool]
        pool = {int(self._chunks.ids[i]): float(cos[i]) for i in top}
        return _Side(lex, pool, np.array(list(pool.values())), len(keep))

    def _score_messages(
        self,
        query: str,
        side: _Side,
        hi: float,
        lo: float,
        qvec: np.ndarray | None,
        scope: SearchFilters,
        facts: dict[int, tuple[float, float]],
        timing: when.Timing,
    ) -> list[tuple[float, Kind, int]]:
        """Message scores; fills ``facts`` (id -> created_at, query cosine) for supersession."""
        cand = sorted(set(side.lex) | set(side.cos))
        if not cand:
            return []
        meta = self._candidates.with_neighbours(self.storage.sessions, cand, scope)
        ids = np.array(sorted(meta), dtype=np.int64)
        id_list = ids.tolist()
        n = len(id_list)
        rows = [meta[i] for i in id_list]
        labels: dict[str, int] = {}
        session = np.fromiter((labels.setdefault(r[0], len(labels)) for r in rows), np.int64, n)
        seq = np.fromiter((r[3] for r in rows), np.int64, n)
        # Neighbours inside the set, by (session, seq ± 1). A system message
        # or one outside the scope is not in ``meta``, so that side stays -1.
        key = session * (1 << 32) + seq
        order = np.argsort(key)
        keys = key[order]
        prev, nxt = index.lookup(keys, order, key - 1), index.lookup(keys, order, key + 1)
        cos = np.zeros(n)
        if qvec is not None and len(self._messages):
            pos = self._messages.positions(ids)
            found = pos >= 0
            cos[found] = self._messages.matrix[pos[found]] @ qvec
        in_pool = index.spread(ids, side.cos, np.zeros(n)) > 0
        has_vec = in_pool | (cos != 0)
        dense = np.where(has_vec, fusion.dense_norm(cos, hi, lo), 0.0)
        lex = index.spread(ids, side.lex, np.zeros(n), values=True)
        base = fusion.base_scores(lex, dense, self.params.w_lex)
        score = fusion.context_scores(base, prev, nxt, session, self.params)
        other = speakers.factors(query, [r[4] for r in rows], self.params.other_speaker_factor)
        if other is not None:  # after the lifts: an answer is often the reply to a question
            score = score * other
        score = score / self.params.message_scale
        context = score
        automated = np.fromiter((r[2] in fusion.AUTOMATED_SOURCES for r in rows), bool, n)
        score = np.where(automated, score * self.params.automated_penalty, score)
        stamps = np.fromiter((r[1] for r in rows), np.float64, n)
        facts.update(zip(id_list, zip(stamps.tolist(), cos.tolist(), strict=True), strict=True))
        time = timing.factor(stamps, score, self.clock(), self.params, np.ones(n, bool))
        score = score * time
        if self._parts is not None:
            penalty = np.where(automated, self.params.automated_penalty, 1.0)
            self._note("message", id_list, lex, dense, cos, base, context, penalty, time, score)
        return list(zip(score.tolist(), itertools.repeat("message"), id_list, strict=False))

    def _score_chunks(
        self, side: _Side, hi: float, lo: float, timing: when.Timing
    ) -> list[tuple[float, Kind, int]]:
        cand = sorted(set(side.lex) | set(side.cos))
        if not cand:
            return []
        rows = self.storage.chunks.dating(cand)
        ids = [r[0] for r in rows]
        lex = np.array([side.lex.get(i, 0.0) for i in ids])
        cos = np.array([side.cos.get(i, lo) for i in ids])
        base = fusion.base_scores(lex, fusion.dense_norm(cos, hi, lo), self.params.w_lex)
        stamps = np.array([r[2] for r in rows], dtype=np.float64)
        decays = np.array([r[1] for r in rows], dtype=bool)
        time = timing.factor(stamps, base, self.clock(), self.params, decays)
        score = base * time
        if self._parts is not None:
            dense = fusion.dense_norm(cos, hi, lo)
            ones = np.ones(len(ids))
            self._note("chunk", ids, lex, dense, cos, base, base, ones, time, score)
        return [(float(s), "chunk", i) for s, i in zip(score, ids, strict=True)]

    def _note(self, kind: Kind, ids: list[int], *columns: np.ndarray) -> None:
        """Keep each candidate's score parts for ``explain`` (columns in ``_PARTS`` order)."""
        assert self._parts is not None
        for row, item in enumerate(ids):
            self._parts[(kind, item)] = {
                name: round(float(col[row]), 4) for name, col in zip(_PARTS, columns, strict=True)
            }

    def _finish(
        self,
        query: str,
        hits: list[SearchHit],
        mode: str,
        notes: list[str],
        scope: SearchFilters,
        timing: when.Timing | None = None,
    ) -> SearchResult:
        recall_id = None
        if self.record_recalls:
            try:
                recall_id = self.storage.recalls.record(query, hits, mode, scope, self.clock())
            except StorageUnavailable as exc:
                notes.append(f"this search was not recorded ({exc})")
        shown = timing.to_dict() if timing is not None else None
        return SearchResult(
            query, hits, "hybrid" if mode == "hybrid" else "keyword", notes, recall_id, shown
        )
