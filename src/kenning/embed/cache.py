"""A content-addressed embedding cache wrapped around any embedder.

Vectors are stored through the storage's ``EmbeddingCache`` (in SQLite the
table ``embed_cache(identity, kind, hash, v)``), keyed by the embedder
identity, "q"/"p" (query or passage) and sha256 of the exact text, so
re-imports, index rebuilds and benchmark re-runs never embed the same text
twice. The cache never changes what an embedder returns: a hit
is the bytes the same embedder produced before. The cache lives in
``state.db`` (``Archive.storage.embedding_cache``) or in a standalone file
opened with ``kenning.storage.open_embedding_cache`` (the benchmark's cache in
the user cache directory).
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Sequence

import numpy as np

from kenning.embed.base import Calibration, Embedder, EmbedderIdentity, EmbeddingCache, Vectors


def text_hash(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8")).digest()


class CachedEmbedder:
    """``inner`` with a persistent cache; same identity and floor as ``inner``."""

    def __init__(self, inner: Embedder, cache: EmbeddingCache) -> None:
        self.inner = inner
        self.cache = cache
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    @property
    def identity(self) -> EmbedderIdentity:
        return self.inner.identity

    @property
    def relevance_floor(self) -> float | None:
        return self.inner.relevance_floor

    @property
    def abstention(self) -> Calibration | None:
        return self.inner.abstention

    def embed_passages(self, texts: Sequence[str]) -> Vectors:
        return self._get(texts, "p")

    def embed_query(self, text: str) -> Vectors:
        vector: Vectors = self._get([text], "q")[0]
        return vector

    def embed_queries(self, texts: Sequence[str]) -> Vectors:
        """Warm the cache for many queries at once (batched like passages)."""
        return self._get(texts, "q")

    def _get(self, texts: Sequence[str], kind: str) -> Vectors:
        identity = self.inner.identity
        key = identity.key()
        hashes = [text_hash(t) for t in texts]
        unique = list(dict.fromkeys(hashes))
        with self._lock:
            found: dict[bytes, Vectors] = dict(self.cache.get_many(key, kind, unique))
        missing = {h: t for h, t in zip(hashes, texts, strict=True) if h not in found}
        self.hits += len(texts) - len(missing)
        self.misses += len(missing)
        if missing:
            todo = list(missing.items())
            batch_queries = getattr(self.inner, "embed_queries", None)
            if kind == "q" and batch_queries is not None and len(todo) > 1:
                new = batch_queries([t for _, t in todo])
            elif kind == "q":
                new = np.vstack([self.inner.embed_query(t)[None, :] for _, t in todo])
            else:
                new = self.inner.embed_passages([t for _, t in todo])
            with self._lock:
                self.cache.put_many(
                    key, kind, [(h, v) for (h, _), v in zip(todo, new, strict=True)]
                )
            for (h, _), v in zip(todo, new, strict=True):
                found[h] = v
        out = np.zeros((len(texts), identity.dims), dtype=np.float32)
        for i, h in enumerate(hashes):
            out[i] = found[h]
        return out
