"""The embedder protocol: text in, L2-normalised float32 vectors out.

Invariants every embedder keeps:
- ``embed_passages(texts)`` returns shape ``(len(texts), dims)`` and
  ``embed_query(text)`` shape ``(dims,)``, both float32 with unit L2 norm
  (a zero vector stays zero), so a dot product is a cosine.
- ``identity`` names the vector space. Two embedders with equal identities
  produce interchangeable vectors; vectors of different identities are never
  mixed (the search index records the identity it was built with).
- Queries and passages may be embedded differently (e5 prefixes them), so
  callers always say which one they want; callers never add prefixes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

Vectors = npt.NDArray[np.float32]
Progress = Callable[[int], None]


class EmbedderError(RuntimeError):
    """The embedder could not produce vectors; the message says why and what to do."""


@dataclass(frozen=True)
class EmbedderIdentity:
    """What makes two vectors comparable: model name, dimensions, variant/version."""

    name: str
    dims: int
    version: str = ""

    def key(self) -> str:
        return f"{self.name}|{self.dims}|{self.version}"


# Languages an abstention calibration can name (``search.abstain.language``).
Language = Literal["en", "zh"]


@dataclass(frozen=True)
class Calibration:
    """When a search abstains although words matched (``search.abstain``).

    A query in language L abstains when ``best_cosine + coverage_weight *
    coverage`` is at or below ``floors[L]``, raised by ``no_word_margin`` when
    none of the query's words is in any hit. ``source`` names the data the
    numbers were chosen on, so every tuned constant says where it comes from.
    """

    floors: Mapping[Language, float]
    coverage_weight: float
    no_word_margin: float = 0.0
    source: str = ""


@runtime_checkable
class Embedder(Protocol):
    @property
    def identity(self) -> EmbedderIdentity: ...

    @property
    def relevance_floor(self) -> float | None:
        """Cosine below which a query with no lexical match counts as matching nothing.

        Cosine bands are model-specific (e5 puts unrelated text at ~.75-.80),
        so each embedder carries its own calibrated floor, or None for none.
        """
        ...

    @property
    def abstention(self) -> Calibration | None:
        """Per-script floors for abstaining even when words matched (``search.abstain``),
        or None: then only ``relevance_floor`` applies."""
        ...

    def embed_passages(self, texts: Sequence[str]) -> Vectors: ...

    def embed_query(self, text: str) -> Vectors: ...


def normalise(vectors: npt.ArrayLike) -> Vectors:
    """Rows scaled to unit length (float32); all-zero rows stay zero."""
    arr = np.asarray(vectors, dtype=np.float32)
    if arr.ndim == 1:
        norm = float(np.linalg.norm(arr))
        return arr / norm if norm > 0 else arr
    norms = np.linalg.norm(arr, axis=1, keepdims=True)
    out: Vectors = np.divide(arr, norms, out=np.zeros_like(arr), where=norms > 0)
    return out


def embed_in_batches(
    embedder: Embedder,
    texts: Sequence[str],
    *,
    batch: int = 64,
    progress: Progress | None = None,
) -> Vectors:
    """``embed_passages`` in batches, calling ``progress(n_done_in_batch)`` after each."""
    dims = embedder.identity.dims
    out = np.zeros((len(texts), dims), dtype=np.float32)
    for start in range(0, len(texts), batch):
        part = list(texts[start : start + batch])
        out[start : start + len(part)] = embedder.embed_passages(part)
        if progress is not None:
            progress(len(part))
    return out


# What an embedding cache must do; the storage backends implement it (kenning.storage).
class EmbeddingCache(Protocol):
    """Vectors by (embedder identity, "q"/"p", sha256 of the text)."""

    def get_many(
        self, identity: str, kind: str, hashes: Sequence[bytes]
    ) -> dict[bytes, np.ndarray]: ...

    def put_many(
        self, identity: str, kind: str, items: Sequence[tuple[bytes, np.ndarray]]
    ) -> None: ...
