"""Lexical relevance of skills to a text: what the index and ``skills_search`` rank by.

A skill is found by its name, tags and description — what its author wrote
to say when it applies. Query and skill are tokenised the way the archive's
search tokenises (:func:`kenning.storage.text.query_terms`: stopwords dropped,
CJK runs as bigrams), then folded by a light suffix stripper so "deploying"
meets "deploy" and "releases" meets "release". Scoring is BM25 over the
description, plus fixed weights for a term found in the name or the tags,
each times the term's IDF so rare words count more than common ones.

Pure and fast: tokens are cached per (name, description, tags); one ranking
over 3,000 skills is a few milliseconds. Scores are deterministic, and ties
are broken by name by the callers.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from kenning.storage.text import query_terms

# Weights: a query word in the skill's *name* is the strongest evidence the
# author could give (names are chosen to be found); tags are curated topics;
# the description's terms go through BM25's length normalisation.
NAME_WEIGHT = 1.6
TAG_WEIGHT = 1.0
K1 = 1.2
B = 0.75

_SPLIT_NAME = re.compile(r"[-._]+")
_SUFFIXES = ("ing", "ed", "es", "s", "e")


def stem(token: str) -> str:
    """A light suffix stripper for English; CJK and short tokens pass unchanged."""
    if not token.isascii():
        return token
    for suffix in _SUFFIXES:
        if token.endswith(suffix) and len(token) - len(suffix) >= 3:
            return token[: -len(suffix)]
    return token


@lru_cache(maxsize=32_768)
def terms(text: str) -> frozenset[str]:
    return frozenset(stem(t) for t in query_terms(text))


@dataclass(frozen=True)
class Doc:
    """What ranking knows about one skill."""

    name: str
    description: str
    tags: tuple[str, ...] = ()

    @property
    def name_terms(self) -> frozenset[str]:
        return terms(_SPLIT_NAME.sub(" ", self.name))

    @property
    def tag_terms(self) -> frozenset[str]:
        return terms(" ".join(self.tags))

    @property
    def body_terms(self) -> frozenset[str]:
        return terms(self.description)


def scores(query: str, docs: Sequence[Doc]) -> list[float]:
    """Relevance of each doc to ``query`` (0.0 = no shared term), in ``docs`` order."""
    wanted = terms(query)
    if not wanted or not docs:
        return [0.0] * len(docs)
    fields = [(d.name_terms, d.tag_terms, d.body_terms) for d in docs]
    n = len(docs)
    df = dict.fromkeys(wanted, 0)
    total_len = 0
    for name_t, tag_t, body_t in fields:
        total_len += len(body_t)
        for term in wanted & (name_t | tag_t | body_t):
            df[term] += 1
    avg_len = total_len / n or 1.0
    idf = {t: math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5)) for t in wanted if df[t]}
    if not idf:
        return [0.0] * n
    out = []
    for name_t, tag_t, body_t in fields:
        score = 0.0
        norm = K1 * (1 - B + B * len(body_t) / avg_len)
        for term in idf.keys() & (name_t | tag_t | body_t):
            weight = (K1 + 1) / (1 + norm) if term in body_t else 0.0
            weight += NAME_WEIGHT if term in name_t else 0.0
            weight += TAG_WEIGHT if term in tag_t else 0.0
            score += idf[term] * weight
        out.append(score)
    return out
