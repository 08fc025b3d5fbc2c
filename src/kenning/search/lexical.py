"""The lexical side: FTS5 bm25 over ``message_fts`` / ``chunk_fts`` with safe queries.

Invariants: user text reaches FTS5 only through ``text.fts_or_query`` (so no
syntax error is possible), scope filters are part of the SQL (rows outside the
scope are never scored, so they can never leak), and scores are ``-bm25``
(higher is better). Terms in more than ``max_df`` of the documents are
dropped: bm25 gives them ~0 idf while scoring their whole posting list is
what makes large archives slow (FINDINGS §5).
"""

from __future__ import annotations

import sqlite3

from kenning.search.text import cjk_index_text, fts_or_query

# bm25 weight of the ``ctx`` column (the previous message): a match in the
# context is weaker evidence than one in the message itself; .35 was worth
# +.06 R@10 over ignoring it (FINDINGS §2).
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


def term_doc_counts(conn: sqlite3.Connection, table: str, terms: list[str]) -> list[int]:
    """Documents whose ``body`` holds each term (max over the term's indexed tokens).

    The indexed form of a term (porter stem, CJK bigrams) comes from feeding it
    through a scratch FTS5 table with the same tokenizer.
    """
    if not terms:
        return []
    _ensure_temp(conn)
    conn.execute("DELETE FROM temp.kenning_qtok")
    conn.executemany(
        "INSERT INTO temp.kenning_qtok (rowid, t) VALUES (?, ?)",
        [(i, cjk_index_text(t)) for i, t in enumerate(terms)],
    )
    tokens: dict[int, set[str]] = {}
    for token, doc in conn.execute("SELECT term, doc FROM temp.kenning_qtok_v"):
        tokens.setdefault(int(doc), set()).add(str(token))
    every = sorted(set().union(*tokens.values())) if tokens else []
    counts: dict[str, int] = {}
    if every:
        marks = ",".join("?" * len(every))
        counts = {
            str(t): int(d)
            for t, d in conn.execute(
                f"SELECT term, doc FROM temp.{table}_vocab "
                f"WHERE col = 'body' AND term IN ({marks})",
                every,
            )
        }
    return [
        max((counts.get(t, 0) for t in tokens.get(i, ())), default=0) for i in range(len(terms))
    ]


def max_df_for(n_docs: int) -> float:
    """Document-frequency cut-off: .2 costs nothing measurable; above ~20k
    documents .05 keeps FTS5 fast (6.9 against 16.7 ms at 100k) for <= .01 R@10."""
    return 0.2 if n_docs < 20_000 else 0.05


def prune_terms(conn: sqlite3.Connection, table: str, terms: list[str], n_docs: int) -> list[str]:
    """Drop near-stopwords of this archive; if every term would go, keep them all."""
    if not terms or n_docs <= 0:
        return terms
    limit = max_df_for(n_docs) * n_docs
    counts = term_doc_counts(conn, table, terms)
    kept = [t for t, c in zip(terms, counts, strict=True) if c <= limit]
    return kept or terms


def search_messages(
    conn: sqlite3.Connection,
    terms: list[str],
    scope_sql: str,
    scope_params: list[object],
    limit: int = LEX_LIMIT,
) -> list[tuple[int, float]]:
    """(message id, -bm25) best first, inside the scope given as SQL over ``m``/``s``."""
    match = fts_or_query(terms)
    if not match:
        return []
    sql = f"""SELECT f.rowid, -bm25(message_fts, 1.0, {CTX_WEIGHT}) AS score
              FROM message_fts f
              JOIN messages m ON m.id = f.rowid
              JOIN sessions s ON s.id = m.session_id
              WHERE message_fts MATCH ? {scope_sql}
              ORDER BY score DESC LIMIT ?"""
    return [(int(r[0]), float(r[1])) for r in conn.execute(sql, (match, *scope_params, limit))]


def search_chunks(
    conn: sqlite3.Connection,
    terms: list[str],
    scope_sql: str,
    scope_params: list[object],
    limit: int = LEX_LIMIT,
) -> list[tuple[int, float]]:
    """(chunk id, -bm25) best first, inside the scope given as SQL over ``c``/``f``."""
    match = fts_or_query(terms)
    if not match:
        return []
    sql = f"""SELECT x.rowid, -bm25(chunk_fts, 1.0, {CTX_WEIGHT}) AS score
              FROM chunk_fts x
              JOIN memory_chunks c ON c.id = x.rowid
              JOIN memory_files mf ON mf.path = c.path
              WHERE chunk_fts MATCH ? {scope_sql}
              ORDER BY score DESC LIMIT ?"""
    return [(int(r[0]), float(r[1])) for r in conn.execute(sql, (match, *scope_params, limit))]
