"""Abstention: when the best a search found is still not about the query, return nothing.

A dense retriever always has a nearest neighbour, so "nothing was said about
this" has to be decided. Two facts, both cheap after ranking:

- the best cosine between the query and any stored vector (``best_cosine``);
- ``coverage``: the largest share of the query's words, weighted by their idf
  in this archive, that one returned hit contains. A never-mentioned query
  may share a word with the archive ("cup", "银行"), rarely most of them; and
  an answerable one that shares no word with any of its hits was not seen
  once in ~2,000 LoCoMo and bench questions, hence ``no_word_margin``.

Cosine bands are model- and language-specific (e5 puts a Chinese question
about anything at .85-.90, an English one about nothing at ~.80), so an
embedder's :class:`~kenning.embed.base.Calibration` has a floor per language.
Only languages it was measured on are judged, and only when the best hit is
in the query's language: cross-lingual cosines run lower, and an uncalibrated
language keeps the embedder's plain ``relevance_floor`` (abstain only when no
word matched at all). So the rule is never stricter than before where it was
not measured: a wrong guess keeps hits rather than hiding them.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal

from kenning.embed.base import Calibration, Language
from kenning.storage.query import SearchHit
from kenning.storage.text import STOPWORDS

if TYPE_CHECKING:
    from kenning.storage import TextIndex

_HAN = re.compile("[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_KANA_HANGUL = re.compile("[\u3040-\u30ff\uac00-\ud7af\u1100-\u11ff]")
_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")
# Share of English function words from which accented Latin text counts as
# English: English prose runs at ~40-50 %, Spanish or German far lower.
_ENGLISH_SHARE = 0.3
_SAMPLE = 1_000  # characters of a hit looked at


def language(text: str, *, query: bool) -> Language | None:
    """``zh`` for Han without kana/Hangul (Chinese, also mixed with English words);
    ``en`` for English; None for anything else or unsure.

    Latin-script text counts as English when it is plain ASCII (Spanish, French,
    German or Portuguese prose nearly always has an accented letter) or, with
    accents, when English function words are >= 30 % of its words (a query: any).
    """
    text = text[:_SAMPLE]
    if _KANA_HANGUL.search(text):
        return None  # Japanese, Korean: not calibrated
    if _HAN.search(text):
        return "zh"
    words = _WORD.findall(text)
    if not words or not all(_latin(w) for w in words):
        return None  # no letters, or Cyrillic, Greek, Arabic...
    if all(w.isascii() for w in words):
        return "en"
    function = sum(1 for w in words if w.lower() in STOPWORDS)
    if query:
        return "en" if function else None
    return "en" if function / len(words) >= _ENGLISH_SHARE else None


def _latin(word: str) -> bool:
    return all(ch.isascii() or "\u00c0" <= ch <= "\u024f" for ch in word)


def idf_weights(doc_counts: Sequence[int], n_docs: int) -> list[float]:
    """Robertson idf, floored at 0: a word in every document says nothing."""
    return [max(0.0, math.log((n_docs + 1) / (d + 0.5))) for d in doc_counts]


def coverage(
    index: TextIndex,
    table: Literal["message", "chunk"],
    terms: Sequence[str],
    weights: Sequence[float],
    hit_ids: Sequence[int],
) -> float:
    """The largest idf-weighted share of ``terms`` that one of ``hit_ids`` contains.

    Matching goes through the same FTS5 table (and so the same tokenizer:
    stems, CJK bigrams) as the search: one indexed lookup per term, limited
    to the hits' rowids, asked of the index at once (one round trip to a server).
    """
    total = sum(weights)
    if not terms or not hit_ids or total <= 0:
        return 0.0
    ids = list(dict.fromkeys(hit_ids))
    got: dict[int, float] = dict.fromkeys(ids, 0.0)
    asked = [(t, w) for t, w in zip(terms, weights, strict=True) if w > 0]
    holding = index.containing_each(table, [t for t, _ in asked], ids)
    for (_, weight), found in zip(asked, holding, strict=True):
        for rowid in found:
            got[rowid] += weight
    return max(got.values()) / total


def hit_coverage(
    index: TextIndex,
    terms: Sequence[str],
    hits: Sequence[SearchHit],
    n_messages: int,
    message_term_docs: dict[str, int] | None = None,
) -> float:
    """``coverage`` over the message hits and the memory-chunk hits, whichever is higher;
    idf from each table's own document counts (``message_term_docs``: the engine's cache)."""
    best = 0.0
    kinds: tuple[Literal["message", "chunk"], ...] = ("message", "chunk")
    for kind in kinds:
        ids = [h.id for h in hits if h.kind == kind]
        if not ids or not terms:
            continue
        if kind == "message":
            n_docs = n_messages
            counts = index.term_doc_counts(kind, list(terms), message_term_docs)
        else:
            n_docs = index.doc_count("chunk")
            counts = index.term_doc_counts(kind, list(terms))
        best = max(best, coverage(index, kind, terms, idf_weights(counts, n_docs), ids))
    return best


def judges(calibration: Calibration | None, query: str) -> bool:
    """Whether ``calibration`` has a floor for the query's language."""
    if calibration is None:
        return False
    lang = language(query, query=True)
    return lang is not None and lang in calibration.floors


def verdict(
    calibration: Calibration,
    query: str,
    best_cosine: float,
    best_hit_text: str | None,
    hit_coverage: float,
) -> bool | None:
    """True: abstain; False: keep the hits; None: not calibrated for this query and
    hit (another language, or a cross-lingual best hit), so the caller's plain
    relevance floor decides."""
    lang = language(query, query=True)
    if lang is None or lang not in calibration.floors:
        return None
    if best_hit_text is None or language(best_hit_text, query=False) != lang:
        return None  # cross-lingual or unsure: not what the floors were measured on
    floor = calibration.floors[lang]
    if hit_coverage <= 0:
        floor += calibration.no_word_margin
    return best_cosine + calibration.coverage_weight * hit_coverage <= floor
