"""The lexical side's rules: which query terms are worth matching.

The matching itself (bm25 over the full-text index, inside the scope) is the
storage's ``index.match_messages`` / ``match_chunks``. Messages the index does
not hold yet, when the search cannot add them (a read-only server), are
matched by ``pending_scores``. Terms in more than
``max_df`` of the documents are dropped: bm25 gives them ~0 idf while scoring
their whole posting list is what makes large archives slow.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from kenning.search.abstain import idf_weights

if TYPE_CHECKING:
    from kenning.storage import TextIndex
    from kenning.storage.query import SearchFilters

LEX_LIMIT = 200  # lexical candidates per query; the cost is scoring, not this cap
# Messages not yet indexed that a search which cannot index them still reads
# (the newest first): a read-only server between two writable searches.
PENDING_LIMIT = 2000


def max_df_for(n_docs: int) -> float:
    """Document-frequency cut-off: .2 costs nothing measurable; above ~20k
    documents .05 keeps FTS5 fast (6.9 against 16.7 ms at 100k) for <= .01 R@10."""
    return 0.2 if n_docs < 20_000 else 0.05


def prune_terms(
    index: TextIndex,
    table: Literal["message", "chunk"],
    terms: list[str],
    n_docs: int,
    known: dict[str, int] | None = None,
) -> list[str]:
    """Drop near-stopwords of this archive; if every term would go, keep them all."""
    if not terms or n_docs <= 0:
        return terms
    limit = max_df_for(n_docs) * n_docs
    counts = index.term_doc_counts(table, terms, known)
    kept = [t for t, c in zip(terms, counts, strict=True) if c <= limit]
    return kept or terms


def pending_scores(
    index: TextIndex,
    terms: list[str],
    scope: SearchFilters,
    n_docs: int,
    known: dict[str, int] | None = None,
) -> dict[int, float]:
    """Messages still queued for the index, scored 0..1 like normalised bm25: the
    idf-weighted share of the query's terms each holds (1: every term).

    For a search that could not bring the index up to date: without it, what
    was said since the last writable search could not be found at all.
    """
    held = index.pending_matches(terms, scope, PENDING_LIMIT)
    if not held:
        return {}
    weights = idf_weights(index.term_doc_counts("message", terms, known), n_docs)
    if not any(weights):
        weights = [1.0] * len(terms)
    total = sum(weights)
    return {i: sum(weights[n] for n in found) / total for i, found in held.items()}
