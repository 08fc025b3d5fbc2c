"""The lexical side: FTS5 bm25 over ``message_fts`` / ``chunk_fts`` with safe queries.

Invariants: user text reaches FTS5 only through ``text.fts_or_query`` (so no
syntax error is possible), scope filters are part of the SQL (rows outside the
scope are never scored, so they can never leak), and scores are ``-bm25``
(higher is better). Terms in more than ``max_df`` of the documents are
dropped: bm25 gives them ~0 idf while scoring their whole posting list is
what makes large archives slow.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable

from kenning.search.text import cjk_index_text, fts_or_query

# bm25 weight of the ``ctx`` column (the previous message): a match in the
# context is weaker evidence than one in the message itself. Re-measured on
# LoCoMo conversations 1-5 (dev) with the rest of the ranking as it is now:
# R@10 .818 at .35, .802 without the column, .813 at .6; held-out 6-10 .780,
# .777 and .774.
CTX_WEIGHT = 0.35
LEX_LIMIT = 200  # lexical candidates per query; the cost is scoring, not this cap


def _ensure_temp(conn: sqlite3.Connection) -> None:
    """Per-connection scratch tables: a tokenizer probe and vocabulary views."""
    have = {r[0] for r in conn.execute("SELECT name FROM temp.sqlite_master")}
    if "kenning_qtok" not in have:
        conn.execute(
            "CREATE VIRTUAL TABLE temp.kenning_qtok USING fts5(t, tokenize='porter unicode61')"
        )
    if "kenning_qtok_v" not in have:
        conn.execute(
            "CREATE VIRTUAL TABLE temp.kenning_qtok_v USING fts5vocab(temp, kenning_qtok, instance)"
        )
    for table in ("message_fts", "chunk_fts"):
        if f"{table}_vocab" not in have:
            conn.execute(
                f"CREATE VIRTUAL TABLE temp.{table}_vocab USING fts5vocab(main, {table}, col)"
            )


# term -> its indexed tokens. The tokenizer is fixed, so this never goes
# stale; the bound only caps memory (a user's distinct query words).
_FORMS: dict[str, frozenset[str]] = {}
_FORMS_MAX = 50_000


def _indexed_forms(conn: sqlite3.Connection, term: str) -> frozenset[str]:
    """The tokens FTS5 indexes for ``term``, via the scratch table on a cache miss.

    Cached because the scratch round trip (delete, insert, vocab read) is a
    write on every search otherwise.
    """
    forms = _FORMS.get(term)
    if forms is None:
        conn.execute("DELETE FROM temp.kenning_qtok")
        conn.execute(
            "INSERT INTO temp.kenning_qtok (rowid, t) VALUES (1, ?)", (cjk_index_text(term),)
        )
        forms = frozenset(str(r[0]) for r in conn.execute("SELECT term FROM temp.kenning_qtok_v"))
        if len(_FORMS) >= _FORMS_MAX:
            _FORMS.clear()
        _FORMS[term] = forms
    return forms


def stems(conn: sqlite3.Connection, terms: Iterable[str]) -> list[str]:
    """Each term as the index holds it: its porter stem (the longest token if it splits)."""
    _ensure_temp(conn)
    out = []
    for term in terms:
        forms = _indexed_forms(conn, term)
        out.append(max(sorted(forms), key=len) if forms else term)
    return out


def term_doc_counts(
    conn: sqlite3.Connection, table: str, terms: list[str], known: dict[str, int] | None = None
) -> list[int]:
    """Documents whose ``body`` holds each term (max over the term's indexed tokens).

    The indexed form of a term (porter stem, CJK bigrams) comes from feeding it
    through a scratch FTS5 table with the same tokenizer. ``known`` caches
    token -> count; the caller clears it whenever the index changes.
    """
    if not terms:
        return []
    _ensure_temp(conn)  # also after a reconnect: temp tables live per connection
    tokens = [_indexed_forms(conn, t) for t in terms]
    counts = known if known is not None else {}
    ask = sorted(set().union(*tokens) - counts.keys())
    if ask:
        marks = ",".join("?" * len(ask))
        counts.update(dict.fromkeys(ask, 0))
        counts.update(
            (str(t), int(d))
            for t, d in conn.execute(
                f"SELECT term, doc FROM temp.{table}_vocab "
                f"WHERE col = 'body' AND term IN ({marks})",
                ask,
            )
        )
    return [max((counts[t] for t in forms), default=0) for forms in tokens]


def max_df_for(n_docs: int) -> float:
    """Document-frequency cut-off: .2 costs nothing measurable; above ~20k
    documents .05 keeps FTS5 fast (6.9 against 16.7 ms at 100k) for <= .01 R@10."""
    return 0.2 if n_docs < 20_000 else 0.05


def prune_terms(
    conn: sqlite3.Connection,
    table: str,
    terms: list[str],
    n_docs: int,
    known: dict[str, int] | None = None,
) -> list[str]:
    """Drop near-stopwords of this archive; if every term would go, keep them all."""
    if not terms or n_docs <= 0:
        return terms
    limit = max_df_for(n_docs) * n_docs
    counts = term_doc_counts(conn, table, terms, known)
    kept = [t for t, c in zip(terms, counts, strict=True) if c <= limit]
    return kept or terms


def _ranked(
    conn: sqlite3.Connection, sql: str, terms: list[str], params: list[object], limit: int
) -> list[tuple[int, float]]:
    """Run a ``MATCH ? … LIMIT ?`` query for the OR of ``terms``; (rowid, score) best first."""
    match = fts_or_query(terms)
    if not match:
        return []
    return [(int(r[0]), float(r[1])) for r in conn.execute(sql, (match, *params, limit))]


def search_messages(
    conn: sqlite3.Connection,
    terms: list[str],
    scope_sql: str,
    scope_params: list[object],
    limit: int = LEX_LIMIT,
) -> list[tuple[int, float]]:
    """(message id, -bm25) best first, inside the scope given as SQL over ``m``/``s``."""
    if scope_sql:
        sql = f"""SELECT f.rowid, -bm25(message_fts, 1.0, {CTX_WEIGHT}) AS score
                  FROM message_fts f
                  JOIN messages m ON m.id = f.rowid
                  JOIN sessions s ON s.id = m.session_id
                  WHERE message_fts MATCH ? {scope_sql}
                  ORDER BY score DESC LIMIT ?"""
    else:
        # Unscoped: no join. Every FTS row is a live non-system message (the
        # triggers keep it so), and SQLite would otherwise run the join for
        # every matching row before sorting: 2.5x the cost at 100k messages.
        sql = f"""SELECT rowid, -bm25(message_fts, 1.0, {CTX_WEIGHT}) AS score
                  FROM message_fts WHERE message_fts MATCH ?
                  ORDER BY score DESC LIMIT ?"""
    return _ranked(conn, sql, terms, scope_params, limit)


def search_chunks(
    conn: sqlite3.Connection,
    terms: list[str],
    scope_sql: str,
    scope_params: list[object],
    limit: int = LEX_LIMIT,
) -> list[tuple[int, float]]:
    """(chunk id, -bm25) best first, inside the scope given as SQL over ``c``/``f``."""
    sql = f"""SELECT x.rowid, -bm25(chunk_fts, 1.0, {CTX_WEIGHT}) AS score
              FROM chunk_fts x
              JOIN memory_chunks c ON c.id = x.rowid
              JOIN memory_files mf ON mf.path = c.path
              WHERE chunk_fts MATCH ? {scope_sql}
              ORDER BY score DESC LIMIT ?"""
    return _ranked(conn, sql, terms, scope_params, limit)
