"""One archive searched three ways, for the retrieval benchmarks (LoCoMo, Letta, abstention).

- ``kenning``: ``SearchEngine.search`` itself, with the ranking the caller gives it;
- ``fts5_porter_or``: plain FTS5 porter over ``speaker: text``, OR of quoted
  whitespace tokens (the textbook baseline, see shared/data/locomo/NOTICE.md);
  Chinese and other CJK runs are split into the bigrams the index holds on
  both sides, so the baseline is not blind to them (text without CJK, such as
  LoCoMo's and Letta's, is unchanged);
- ``dense``: the embedder alone (cosine over the engine's stored vectors).

All three see the same messages; vectors come from the engine's own index,
so the dense baseline scores exactly what hybrid search fuses.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from kenning.archive.store import Archive
from kenning.embed.base import Calibration, Embedder, EmbedderIdentity, Vectors
from kenning.search.ann import select_top
from kenning.search.engine import SearchEngine
from kenning.storage.sqlite.baseline import PlainFts
from kenning.storage.text import baseline_fts_query, cjk_index_text, cjk_query_text, doc_text

DEPTH = 50
SYSTEMS = ("fts5_porter_or", "dense", "kenning")
Progress = Callable[[int], None]


def json_objects(path: Path, error: type[Exception]) -> Iterator[tuple[str, dict[str, Any]]]:
    """Each non-blank line of a JSONL data file as (``path:line``, object).

    Benchmark data is read strictly: a damaged line is a broken data set, so it
    raises ``error`` naming the line (importers, by contrast, skip and report).
    """
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise error(f"{path}: cannot read ({exc})") from exc
    # "\n" alone ends a line: splitlines() also breaks at U+2028, U+2029 and U+0085, which
    # JSON allows unescaped inside a string (json.dumps(ensure_ascii=False) writes them so).
    for number, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise error(f"{where}: invalid JSON ({exc.msg})") from exc
        if not isinstance(row, dict):
            raise error(f"{where}: expected a JSON object")
        yield where, row


class FloorOnly:
    """The embedder without its abstention calibration: the engine's rule before it."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner

    @property
    def identity(self) -> EmbedderIdentity:
        return self.inner.identity

    @property
    def relevance_floor(self) -> float | None:
        return self.inner.relevance_floor

    @property
    def abstention(self) -> Calibration | None:
        return None

    def embed_passages(self, texts: Sequence[str]) -> Vectors:
        return self.inner.embed_passages(texts)

    def embed_query(self, text: str) -> Vectors:
        return self.inner.embed_query(text)


class Corpus:
    """An archive, its engine and the two baselines' indexes; ``prepare`` once it is filled."""

    def __init__(self, archive: Archive, engine: SearchEngine, embedder: Embedder) -> None:
        self.archive = archive
        self.engine = engine
        self.embedder = embedder
        self.fts = PlainFts()
        self.session_of: dict[int, str] = {}
        self.ids = np.zeros(0, dtype=np.int64)
        self.vectors = np.zeros((0, embedder.identity.dims), dtype=np.float32)

    def pending_passages(self) -> list[str]:
        """What indexing will embed (to warm a cache in one batch across many corpora)."""
        return self.archive.storage.vectors.pending_passages()

    def prepare(self, progress: Progress | None = None, *, batch: int = 128) -> None:
        self.engine.index_pending(progress=progress, batch=batch)
        storage = self.archive.storage
        rows = storage.sessions.all_messages()
        self.session_of = {int(m.id or 0): str(m.session_id) for m in rows}
        self.fts.add(
            (int(m.id or 0), cjk_index_text(doc_text(m.speaker, m.role, m.content))) for m in rows
        )
        vec_rows = sorted(storage.vectors.since("message", 0), key=lambda r: r[1])
        self.ids = np.array([r[1] for r in vec_rows], dtype=np.int64)
        self.vectors = np.frombuffer(b"".join(r[2] for r in vec_rows), dtype=np.float32).reshape(
            len(vec_rows), -1
        )

    def rank(self, system: str, text: str) -> list[int]:
        """Message ids, best first, as ``system`` (one of ``SYSTEMS``) ranks them."""
        ranker: Callable[[str], list[int]] = getattr(self, system)
        return ranker(text)

    def fts5_porter_or(self, text: str) -> list[int]:
        match = baseline_fts_query(cjk_query_text(text))
        if not match:
            return []
        return self.fts.match(match, DEPTH)

    def dense(self, text: str) -> list[int]:
        cos = self.vectors @ self.embedder.embed_query(text)
        return [int(self.ids[i]) for i in select_top(cos.astype(np.float64), DEPTH)]

    def best_cosine(self, text: str) -> float:
        """The query's highest cosine over all stored vectors (what the abstention floor sees)."""
        if not len(self.vectors):
            return 0.0
        return float(np.max(self.vectors @ self.embedder.embed_query(text)))

    def kenning(self, text: str) -> list[int]:
        result = self.engine.search(text, kinds=("message",), limit=DEPTH)
        return [h.id for h in result.hits]

    def close(self) -> None:
        self.fts.close()
        self.archive.close()


def first_rank(ranking: Sequence[int], wanted: set[int] | frozenset[int]) -> int | None:
    """0-based position of the first wanted id in ``ranking``, None when absent."""
    return next((r for r, i in enumerate(ranking) if i in wanted), None)
