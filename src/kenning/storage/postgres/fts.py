"""Full-text matching on PostgreSQL scored exactly as SQLite's FTS5 ``bm25``.

The search engine ranks by bm25 with the ``ctx`` column weighted
``CTX_WEIGHT`` (``storage.sqlite.index``); PostgreSQL's own ``ts_rank`` has no
idf, so the same query would put other hits first. Here PostgreSQL does the
text search — tokens, the snowball English stemmer (``kenning`` config), the
GIN-indexed ``@@`` match inside the scope — and this module scores the
matching rows with FTS5's formula (k1 1.2, b .75, idf floored at 1e-6).

Text is split into tokens the way FTS5's ``unicode61`` does (letters and
digits; Latin diacritics removed) before PostgreSQL sees it, and CJK runs
become bigrams (``text.cjk_index_text``), so both backends index the same
tokens.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from kenning.storage.text import cjk_index_text

K1 = 1.2
B = 0.75
_TOKEN = re.compile(r"[^\W_]+")
_LEXEME = re.compile(r"'((?:[^']|'')*)'")


def _fold(char: str) -> str:
    if ord(char) < 0x250:  # Latin: "café" is indexed as "cafe", as unicode61 does
        return "".join(
            c for c in unicodedata.normalize("NFD", char) if not unicodedata.combining(c)
        )
    return char


def tokens(text: str) -> list[str]:
    """``text`` as unicode61 tokens (lower case, no Latin diacritics)."""
    lower = text.lower()
    # ASCII has nothing to fold (most text; folding char by char is the cost of indexing)
    folded = lower if lower.isascii() else "".join(_fold(c) for c in lower)
    return _TOKEN.findall(folded)


def prepared(text: str) -> str:
    """What PostgreSQL's parser is given for an indexed document: its tokens, spaced."""
    return " ".join(tokens(cjk_index_text(text)))


def quote_lexeme(lexeme: str) -> str:
    return "'" + lexeme.replace("\\", "\\\\").replace("'", "''") + "'"


@dataclass(frozen=True)
class Term:
    """A query term as the index holds it: its lexemes in order (a phrase if several)."""

    lexemes: tuple[str, ...]
    prefix: bool = False  # one CJK character: every indexed token starting with it

    def tsquery(self) -> str:
        if self.prefix:
            return f"{quote_lexeme(self.lexemes[0])}:*"
        return " <-> ".join(quote_lexeme(x) for x in self.lexemes)

    def tf(self, entries: dict[str, str], ctx_weight: float) -> float:
        """bm25's weighted frequency of this term in a row (``entries``: lexeme -> weights)."""
        if self.prefix:
            weights = "".join(w for lex, w in entries.items() if lex.startswith(self.lexemes[0]))
            return _weighted(weights, ctx_weight)
        return min((_weighted(entries.get(x, ""), ctx_weight) for x in self.lexemes), default=0)


def _weighted(weights: str, ctx_weight: float) -> float:
    return weights.count("A") + ctx_weight * weights.count("B")


def lexemes_of(tsquery_text: str) -> tuple[str, ...]:
    """The lexemes of a ``phraseto_tsquery`` result, in order."""
    return tuple(m.replace("''", "'") for m in _LEXEME.findall(tsquery_text))


def or_query(terms: Iterable[Term]) -> str:
    return " | ".join(f"({t.tsquery()})" for t in terms if t.lexemes)


@dataclass(frozen=True)
class Stats:
    docs: int
    tokens: int

    def idf(self, hits: int) -> float:
        value = math.log((0.5 + self.docs - hits) / (0.5 + hits))
        return value if value > 0 else 1e-6


def bm25(
    rows: Sequence[tuple[int, int, dict[str, str]]],
    terms: Sequence[Term],
    idf: Sequence[float],
    stats: Stats,
    ctx_weight: float,
    limit: int,
) -> list[tuple[int, float]]:
    """(id, -bm25) best first of ``rows`` (id, length in tokens, lexeme -> weights);
    ``idf`` holds each term's (``Stats.idf`` of the rows it matches in the whole table).
    The message index is scored the same way in SQL (``postings``)."""
    avgdl = stats.tokens / stats.docs if stats.docs else 1.0
    scored = []
    for item, length, entries in rows:
        score = 0.0
        for term, weight in zip(terms, idf, strict=True):
            f = term.tf(entries, ctx_weight)
            if f:
                score += weight * f * (K1 + 1) / (f + K1 * (1 - B + B * length / (avgdl or 1.0)))
        scored.append((item, score))
    scored.sort(key=lambda r: (-r[1], r[0]))
    return scored[:limit]


def parse_entries(raw: Sequence[str] | None) -> dict[str, str]:
    """``["lexeme AAB", …]`` (what the match query returns per row) as lexeme -> weights."""
    out: dict[str, str] = {}
    for item in raw or ():
        lexeme, _, weights = item.rpartition(" ")
        out[lexeme] = weights
    return out


_FTS5_PHRASE = re.compile(r'"((?:[^"]|"")*)"(\*?)')


def fts5_phrases(match: str) -> list[tuple[str, bool]]:
    """The quoted phrases of an FTS5 OR expression (``text.fts_or_query``) and their prefix flag."""
    return [
        (m.group(1).replace('""', '"'), m.group(2) == "*") for m in _FTS5_PHRASE.finditer(match)
    ]
