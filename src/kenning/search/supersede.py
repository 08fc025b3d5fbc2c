"""Supersession: a later message that says nearly the same outranks the earlier one.

"The staging database is on port 5432" then, a day or a year later, "…on port
5433": both are found, the newer first, and the older one's hit names the
message that supersedes it (``SearchHit.superseded_by``). No model is asked:
two messages are one statement reworded when their own vectors are close,
they share their words (the subject and the query words the older matched)
and they answer the query about equally well; statements typed together are
a list, never corrections of one another. The thresholds are in
``fusion.RankParams`` with the dev split they were chosen on.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from kenning.search.fusion import Floats, Ints, RankParams
from kenning.search.index import VectorSet
from kenning.search.models import Kind
from kenning.search.text import query_terms

Scored = list[tuple[float, Kind, int]]


def rerank(
    conn: sqlite3.Connection,
    vectors: VectorSet | None,
    query: str,
    scored: Scored,
    facts: dict[int, tuple[float, float]],
    params: RankParams,
) -> tuple[Scored, dict[int, int]]:
    """``scored`` (best first) with corrections lifted above what they supersede.

    ``facts`` maps message id -> (created_at, cosine to the query). Returns the
    re-sorted list and {superseded message id: the id of the later message}.
    """
    top = [j for j, t in enumerate(scored) if t[1] == "message"][: params.supersede_pool]
    if len(top) < 2 or vectors is None or not len(vectors) or params.supersede_cos >= 1.0:
        return scored, {}
    ids = np.array([scored[j][2] for j in top], dtype=np.int64)
    pos = vectors.positions(ids)
    rows = np.zeros((len(top), vectors.matrix.shape[1]), dtype=np.float32)
    rows[pos >= 0] = vectors.matrix[pos[pos >= 0]]
    asked = frozenset(query_terms(query))
    terms: dict[int, frozenset[str]] = {}  # read only for pairs that pass the vector tests

    def words(i: int, j: int) -> bool:
        missing = [int(ids[k]) for k in (i, j) if int(ids[k]) not in terms]
        if missing:
            terms.update(_terms(conn, missing))
        return same_statement(terms[int(ids[i])], terms[int(ids[j])], asked, params)

    new, newer = supersede(
        np.array([scored[j][0] for j in top]),
        np.array([facts[int(i)][1] for i in ids]),
        np.array([facts[int(i)][0] for i in ids]),
        rows,
        params,
        words,
    )
    out = list(scored)
    for k, j in enumerate(top):
        out[j] = (float(new[k]), "message", scored[j][2])
    later = {int(ids[k]): int(ids[newer[k]]) for k in range(len(top)) if newer[k] >= 0}
    return sorted(out, key=lambda t: -t[0]), later


def _terms(conn: sqlite3.Connection, ids: list[int]) -> dict[int, frozenset[str]]:
    found = dict(
        conn.execute(
            "SELECT id, content FROM messages WHERE id IN (SELECT value FROM json_each(?))",
            (json.dumps(ids),),
        ).fetchall()
    )
    return {i: frozenset(query_terms(str(found.get(i, "")))) for i in ids}


def same_statement(
    older: frozenset[str], newer: frozenset[str], query: frozenset[str], params: RankParams
) -> bool:
    """Do two messages' words (``text.query_terms``) make them one statement, reworded?"""
    shared = len(older & newer)
    alike = shared >= params.supersede_jaccard * len(older | newer)
    # a correction often adds its reason ("…; instead, she was nominated"): it
    # keeps most of the older statement's words while its Jaccard falls
    kept = shared >= max(params.supersede_shared, params.supersede_contain * len(older))
    if not shared or not (alike or kept):
        return False
    asked = older & query
    return not asked or len(asked & newer) >= params.supersede_cover * len(asked)


def supersede(
    score: Floats,
    relevance: Floats,
    created: Floats,
    vectors: npt.NDArray[np.float32],
    params: RankParams,
    words: Callable[[int, int], bool] = lambda i, j: True,
) -> tuple[Floats, Ints]:
    """Scores with each correction lifted just above what it supersedes.

    Items are sorted best first; ``vectors`` are unit rows (zero rows, for
    messages without one, never match); ``relevance`` is each item's cosine to
    the query; ``words(i, j)`` says whether older item i and newer item j share
    their words (``same_statement``). Returns the new scores and, per item,
    the index of the newest item that supersedes it (else -1). Corrections are
    applied oldest first, so in a chain the newest ends on top.
    """
    m = min(len(score), params.supersede_pool)
    n = min(m, params.supersede_top)
    out, newer = score.copy(), np.full(len(score), -1, dtype=np.int64)
    if n < 1 or m < 2 or params.supersede_cos >= 1.0:
        return out, newer
    c = created[:m]
    r = relevance[:m]
    # [older candidate i, newer candidate j]: the cheap tests, all at once
    maybe = (
        (vectors[:n] @ vectors[:m].T >= params.supersede_cos)
        & (c[None, :] - c[:n, None] >= params.supersede_gap_s)
        & (r[None, :] >= r[:n, None] - params.supersede_margin)
    )
    for i, j in sorted(zip(*np.nonzero(maybe), strict=True), key=lambda ij: c[ij[1]]):
        if words(int(i), int(j)):
            out[j] = max(out[j], np.nextafter(out[i], np.inf))
            newer[i] = j
    return out, newer
