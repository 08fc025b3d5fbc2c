"""The learned layer: a small classifier for the injections no rule lists.

Logistic regression over hashed character n-grams (3, 4 and 5 characters of the casefolded,
NFKC text, word-boundary padded), numpy only: a 2 KB entry costs well under a millisecond.
Character n-grams carry across languages and survive the small changes a paraphrase makes,
which is what the rules cannot do. The weights (``model/learned.npz``, float16) were trained
by ``tools/train_safety_classifier.py`` on public labelled prompt-injection and benign data
(the sources and their licences are listed in ``model/README.md``) plus the dev split of the
screen's own corpus; the two thresholds were calibrated on a split none of that training used:

- ``block``: the score above which a text is refused (calibrated to at most 0.5 % false
  positives on the calibration split's benign texts);
- ``review``: the score above which a text counts as *borderline*: not refused when a user
  typed it, but held for review when it came from tool output or the web (see
  :mod:`kenning.memory.proposals`).

Without the weights file (a trimmed install) the layer reports nothing.
"""

from __future__ import annotations

import functools
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import numpy as np
import numpy.typing as npt

MODEL_PATH: Final = Path(__file__).parent / "model" / "learned.npz"
BUCKETS_LOG2: Final = 18
NGRAMS: Final = (3, 4, 5)
MAX_CHARS: Final = 8_000  # an entry's head: enough to judge, a bound on cost
_PRIME: Final = np.uint64(1_000_003)
_MASK: Final = np.uint64((1 << BUCKETS_LOG2) - 1)


@dataclass(frozen=True)
class Model:
    weights: npt.NDArray[np.float32]
    bias: float
    block: float
    review: float


def features(text: str) -> npt.NDArray[np.int64]:
    """The distinct hashed n-gram buckets of ``text`` (what the model's weights index)."""
    folded = (
        " " + " ".join(unicodedata.normalize("NFKC", text[:MAX_CHARS]).casefold().split()) + " "
    )
    codes = np.frombuffer(folded.encode("utf-32-le"), dtype=np.uint32).astype(np.uint64)
    parts = []
    for n in NGRAMS:
        if len(codes) < n:
            continue
        h = np.zeros(len(codes) - n + 1, dtype=np.uint64)
        for k in range(n):
            h = h * _PRIME + codes[k : len(codes) - n + 1 + k] + np.uint64(n)
        parts.append((h ^ (h >> np.uint64(29))) & _MASK)
    if not parts:
        return np.zeros(0, dtype=np.int64)
    return np.unique(np.concatenate(parts)).astype(np.int64)


def score(model: Model, text: str) -> float:
    """The probability-like score in [0, 1] that ``text`` is an injection."""
    idx = features(text)
    if len(idx) == 0:
        return 0.0
    z = float(model.weights[idx].sum()) / float(np.sqrt(len(idx))) + model.bias
    return float(1.0 / (1.0 + np.exp(-z)))


@functools.cache
def load() -> Model | None:
    """The shipped model, or None when its file is not installed."""
    if not MODEL_PATH.is_file():
        return None
    with np.load(MODEL_PATH) as data:
        return Model(
            weights=data["weights"].astype(np.float32),
            bias=float(data["bias"]),
            block=float(data["block"]),
            review=float(data["review"]),
        )
