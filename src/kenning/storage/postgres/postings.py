"""bm25 in SQL over the message index's postings (``message_terms``, migration m004).

Scoring a query by unpacking the tsvector of every matching row costs ~18 µs
a row on the server (detoast, ``unnest``) plus the transfer and a Python loop:
200 ms at 100k messages. ``message_terms`` holds one row per (lexeme,
message) with the lexeme's count in the body (``a``) and in the context
(``b``) and the document's length, under a ``(lexeme, message_id)`` key, so a
query reads only its own lexemes' postings (one index range each) and the
server sums FTS5's formula (``fts``: k1 1.2, b .75, the context weighted) and
returns the top ``limit`` (``OFFSET 0`` keeps each lexeme's range a scan of its
own: flattened, the planner cannot see how few rows a range holds and scans
the whole table instead). The scores are those ``fts.bm25`` computes from the
tsvectors, term for term:

- a term of one lexeme: its count;
- a phrase (several lexemes): the smallest count of its lexemes, in documents
  holding them all that also match the phrase itself (checked with the
  tsvector, on those documents only);
- a one-character CJK prefix: the counts of every lexeme starting with it
  (the key is ``COLLATE "C"``, so a prefix is one index range).

The table is written with the tsvectors (``drop`` the old postings, ``write``
the new) and follows their deletion by trigger (migration m004).
"""

from __future__ import annotations

from collections.abc import Sequence

from kenning.storage.postgres import fts
from kenning.storage.postgres.connection import Conn

_TOP = "\U0010ffff"  # above every character: [c, c + _TOP] spans the lexemes starting with c

# The postings of the tsvectors of ``message_fts`` rows (``%s``: their ids).
POSTINGS = """
    SELECT u.lexeme, f.message_id,
           cardinality(array_positions(u.weights, 'A')),
           cardinality(array_positions(u.weights, 'B')),
           f.body_len + f.ctx_len
    FROM message_fts f CROSS JOIN LATERAL unnest(f.tsv) u"""


# Delete the postings of the ``message_fts`` rows in ``{rows}``: found by their
# own lexemes on the key, so the table needs no second index.
DROP_POSTINGS = """DELETE FROM message_terms t USING {rows} g CROSS JOIN LATERAL unnest(g.tsv) u
    WHERE t.lexeme = u.lexeme AND t.message_id = g.message_id"""


def drop(conn: Conn, ids: Sequence[int]) -> None:
    """Delete the postings of ``ids`` (before their tsvectors are replaced).

    Only those of ``ids`` indexed already have any: new messages (every one,
    in a bulk load) cost one primary key lookup, and no delete is planned
    against the postings, which a bulk load holds without their key."""
    held = conn.execute(
        "SELECT array_agg(message_id) FROM message_fts WHERE message_id = ANY(%s)", (list(ids),)
    ).fetchone()
    if held is None or not held[0]:
        return
    rows = "(SELECT message_id, tsv FROM message_fts WHERE message_id = ANY(%s))"
    conn.execute(DROP_POSTINGS.format(rows=rows), (list(held[0]),))


def write(conn: Conn, ids: Sequence[int]) -> None:
    """The postings of ``ids`` made from their (just written) tsvectors."""
    conn.execute(
        f"INSERT INTO message_terms (lexeme, message_id, a, b, len) {POSTINGS} "
        "WHERE f.message_id = ANY(%s)",
        (list(ids),),
    )


def lexeme_docs(conn: Conn, lexemes: Sequence[str], *, body_only: bool) -> dict[str, int]:
    """Messages holding each lexeme (in the body only, or anywhere)."""
    where = " AND p.a > 0" if body_only else ""
    rows = conn.execute(
        f"""SELECT x, (SELECT count(*) FROM message_terms p WHERE p.lexeme = x{where})
            FROM unnest(%s::text[]) AS t(x)""",
        (list(lexemes),),
    )
    return {str(x): int(n) for x, n in rows}


def ranked(
    conn: Conn,
    terms: Sequence[fts.Term],
    idf: Sequence[float],
    stats: fts.Stats,
    ctx_weight: float,
    scope: tuple[str, list[object]],
    limit: int,
) -> list[tuple[int, float]]:
    """(message id, -bm25) best first for the OR of ``terms`` (``idf`` each) inside
    ``scope`` (a ``scope_sql.messages`` condition on ``m`` and ``s``)."""
    index, lows, highs, sizes, prefixes = [], [], [], [], []
    phrases: list[str | None] = []
    for number, term in enumerate(terms):
        phrases.append(term.tsquery() if len(term.lexemes) > 1 else None)
        for lexeme in term.lexemes:
            index.append(number)
            lows.append(lexeme)
            highs.append(lexeme + _TOP if term.prefix else lexeme)
            sizes.append(len(term.lexemes))
            prefixes.append(term.prefix)
    where, params = scope
    joins = (
        "JOIN messages m ON m.id = t.message_id JOIN sessions s ON s.id = m.session_id"
        if where
        else ""
    )
    avgdl = (stats.tokens / stats.docs if stats.docs else 1.0) or 1.0
    # t.len as float8: an integer times the literal .75 is numeric arithmetic, which
    # took three quarters of the query's time at 1M messages (~1.5 µs a posting).
    formula = f"* {fts.K1 + 1} / (t.tf + {fts.K1} * ({1 - fts.B} + {fts.B} * t.len::float8 / %s))"
    lookup = (
        "SELECT message_id, a, b, len FROM message_terms "
        "WHERE lexeme >= q.lo AND lexeme <= q.hi OFFSET 0"
    )
    if all(len(t.lexemes) == 1 and not t.prefix for t in terms):
        # Every term one lexeme (the common case): one posting per term and message.
        sql = f"""
            SELECT t.message_id, sum(t.idf * t.tf {formula}) AS score
            FROM (SELECT x.message_id, q.idf, x.a + %s * x.b AS tf, x.len
                  FROM unnest(%s::text[], %s::text[], %s::float8[]) AS q(lo, hi, idf)
                  CROSS JOIN LATERAL ({lookup}) x) t
            {joins} WHERE true {where}
            GROUP BY t.message_id ORDER BY score DESC, t.message_id LIMIT %s"""
        args = (avgdl, ctx_weight, lows, highs, [idf[i] for i in index], *params, limit)
        rows = conn.execute(sql, args).fetchall()
        return [(int(r[0]), float(r[1])) for r in rows]
    sql = f"""
        WITH q AS (
            SELECT * FROM unnest(%s::int[], %s::text[], %s::text[], %s::int[], %s::bool[])
                AS q(term, lo, hi, n, prefix)),
        p AS (
            SELECT x.message_id, q.term, q.n, q.prefix, x.a + %s * x.b AS tf, x.len
            FROM q CROSS JOIN LATERAL ({lookup}) x),
        t AS (
            SELECT message_id, term,
                   CASE WHEN bool_or(prefix) THEN sum(tf) ELSE min(tf) END AS tf,
                   min(len) AS len
            FROM p GROUP BY message_id, term
            HAVING bool_or(prefix) OR count(*) = min(n))
        SELECT t.message_id, sum(w.idf * t.tf {formula}) AS score
        FROM t
        JOIN unnest(%s::float8[], %s::text[]) WITH ORDINALITY AS w(idf, phrase, term)
            ON w.term = t.term + 1
        {joins}
        WHERE (w.phrase IS NULL OR EXISTS (
            SELECT 1 FROM message_fts f
            WHERE f.message_id = t.message_id AND f.tsv @@ w.phrase::tsquery)) {where}
        GROUP BY t.message_id
        ORDER BY score DESC, t.message_id
        LIMIT %s"""
    args = (index, lows, highs, sizes, prefixes, ctx_weight, avgdl, list(idf), phrases,
            *params, limit)  # fmt: skip
    rows = conn.execute(sql, args).fetchall()
    return [(int(r[0]), float(r[1])) for r in rows]
