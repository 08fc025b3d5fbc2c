"""The shortcuts of the canonical views, the decoders and the learned layer give what the plain
ways they replace give, on the corpus and on texts made of the characters each one treats
specially: the ordinary runs of the base view, the folded view's translation, leet words,
percent runs, reversed lines, the learned layer's features."""

from __future__ import annotations

import itertools
import json
import re
import unicodedata
import zlib
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kenning.safety import canonical, decode, learned

HERE = Path(__file__).parent
HYPOTHESIS = settings(database=None, deadline=None, max_examples=400)


def _corpus_texts() -> list[str]:
    files = [
        *sorted((HERE / "corpus").glob("*.jsonl")),
        *sorted((HERE / "training").glob("*.jsonl")),
    ]
    return [
        json.loads(line)["text"]
        for path in files
        for line in path.read_text(encoding="utf-8").split("\n")
        if line
    ]


@pytest.fixture(scope="module")
def corpus() -> list[str]:
    return _corpus_texts()


# What each shortcut replaced, as it was written.
_ORDINARY_RUN = re.compile(f"(?:[^{canonical._CARE}](?![{canonical._COMPOSING}]))+")
_LEET_WORD = re.compile(
    r"(?=[a-z0-9@$!|€+]*[a-z])(?=[a-z0-9@$!|€+]*[013457890@$!|€+])[a-z0-9@$!|€+]{3,}"
)


def _features(text: str, words: bool = True) -> tuple[np.ndarray, np.ndarray]:  # type: ignore[type-arg]
    folded = (
        " "
        + " ".join(unicodedata.normalize("NFKC", text[: learned.MAX_CHARS]).casefold().split())
        + " "
    )
    codes = np.frombuffer(folded.encode("utf-32-le"), dtype=np.uint32).astype(np.uint64)
    parts = []
    for n in learned.NGRAMS:
        if len(codes) < n:
            continue
        h = np.zeros(len(codes) - n + 1, dtype=np.uint64)
        for k in range(n):
            h = h * np.uint64(1_000_003) + codes[k : len(codes) - n + 1 + k] + np.uint64(n)
        parts.append((h ^ (h >> np.uint64(29))) & np.uint64((1 << learned.BUCKETS_LOG2) - 1))
    # the words and word pairs, each hashed on its own
    tokens = re.findall(r"\w+", folded) if words else []
    grams = tokens + [f"{a} {b}" for a, b in itertools.pairwise(tokens)]
    mask = (1 << learned.BUCKETS_LOG2) - 1
    parts.append(np.array([zlib.crc32(b"w:" + g.encode()) & mask for g in grams], dtype=np.uint64))
    if not sum(len(p) for p in parts):
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float64)
    buckets, counts = np.unique(np.concatenate(parts), return_counts=True)
    return buckets.astype(np.int64), counts.astype(np.float64)


def _same_everywhere(text: str) -> None:
    runs = [m.span() for m in _ORDINARY_RUN.finditer(text)]
    assert list(canonical._ordinary_runs(text)) == runs
    lowered = text.lower()
    assert [m.span() for m in canonical._LEET_WORD.finditer(lowered)] == [
        m.span() for m in _LEET_WORD.finditer(lowered)
    ]
    assert [m.span() for m in decode._percent_runs(text)] == [
        m.span() for m in decode._PERCENT.finditer(text)
    ]
    counted = sum(w in decode._REVERSED_WORDS for w in decode._WORD.findall(lowered))
    assert len(decode._REVERSED_WORD.findall(lowered)) == counted
    base = canonical.base_view(text).text
    if canonical._COMBINING.search(base) is None:
        plain = base.translate(canonical._FOLD_TABLE)
        assert canonical._translated(base) == (plain if len(plain) == len(base) else None)


def test_the_shortcuts_agree_on_the_corpus(corpus: list[str]) -> None:
    for text in corpus:
        _same_everywhere(text)


_SPECIAL = (
    "ab e1!€|.%2F41\n\t \u00a0\u3000\u0300\u0301\u200b\u200d\u00ad\u2028\u3099\u304b\ufe0f"
    "\U0001f600\u0640\u064b\u0915\u094d\u115f\u3164\u0483İıſKΣσς\u01c5\u1e9e"
)


@HYPOTHESIS
@given(st.text(alphabet=st.sampled_from(_SPECIAL), max_size=60))
def test_the_shortcuts_agree_on_their_hard_characters(text: str) -> None:
    _same_everywhere(text)


@HYPOTHESIS
@given(st.text(alphabet=st.sampled_from("ab ,.\n\u00e9\u4e00Ξ"), max_size=20))
def test_the_learned_features_are_those_of_the_hash_summed_per_gram(text: str) -> None:
    for words in (True, False):
        buckets, counts = learned.features(text, words)
        expected_buckets, expected_counts = _features(text, words)
        assert np.array_equal(buckets, expected_buckets)
        assert np.array_equal(counts, expected_counts)


def test_the_learned_features_agree_on_the_corpus(corpus: list[str]) -> None:
    for text in corpus[::7]:
        buckets, counts = learned.features(text)
        expected_buckets, expected_counts = _features(text)
        assert np.array_equal(buckets, expected_buckets)
        assert np.array_equal(counts, expected_counts)
