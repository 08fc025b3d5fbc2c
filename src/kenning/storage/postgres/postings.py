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


# bm25's document frequencies, per lexeme (``message_lexemes``, migration m006):
# counting a common lexeme's postings took longer than ranking with them at 1M
# messages (two counts a query, 20,000-50,000 postings each); kept by statement
# triggers on the postings, and recounted by a bulk load instead.
LEXEME_COUNTS_BUILD = """INSERT INTO message_lexemes (lexeme, docs, body_docs)
    SELECT lexeme, count(*), count(*) FILTER (WHERE a > 0) FROM message_terms GROUP BY lexeme"""

# fts_stats' row first: every writer of the index updates it, so whoever changes
# lexeme counts holds it already, and two writers never wait on each other's
# lexeme rows (a delete's trigger would otherwise lock lexemes, then fts_stats).
LEXEME_COUNTS_FUNCTION = """CREATE FUNCTION message_terms_counts() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM 1 FROM fts_stats WHERE tbl = 'message_fts' FOR NO KEY UPDATE;
    IF TG_OP = 'INSERT' THEN
        INSERT INTO message_lexemes AS l (lexeme, docs, body_docs)
            SELECT lexeme, count(*), count(*) FILTER (WHERE a > 0) FROM added
            GROUP BY lexeme ORDER BY lexeme
        ON CONFLICT (lexeme) DO UPDATE
            SET docs = l.docs + EXCLUDED.docs, body_docs = l.body_docs + EXCLUDED.body_docs;
    ELSE
        UPDATE message_lexemes l SET docs = l.docs - g.docs, body_docs = l.body_docs - g.body
        FROM (SELECT lexeme, count(*) AS docs, count(*) FILTER (WHERE a > 0) AS body
              FROM gone GROUP BY lexeme) g
        WHERE l.lexeme = g.lexeme;
    END IF;
    RETURN NULL;
END $$"""

LEXEME_COUNT_TRIGGERS = (
    ("message_terms_counts_insert", "INSERT", "NEW TABLE AS added"),
    ("message_terms_counts_delete", "DELETE", "OLD TABLE AS gone"),
)


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
    column = "body_docs" if body_only else "docs"
    rows = conn.execute(
        f"SELECT lexeme, {column} FROM message_lexemes WHERE lexeme = ANY(%s)", (list(lexemes),)
    )
    found = {str(x): int(n) for x, n in rows}
    return {x: found.get(x, 0) for x in lexemes}


def bulk_counts(conn: Conn, *, keep: bool) -> None:
    """A bulk load's lexeme counts: the triggers off while it writes the postings
    (``keep`` False; a batch at a time, every common lexeme's row would be updated
    hundreds of times in one transaction), recounted once at its end (``keep``)."""
    state = "ENABLE" if keep else "DISABLE"
    for trigger, _, _ in LEXEME_COUNT_TRIGGERS:
        conn.execute(f"ALTER TABLE message_terms {state} TRIGGER {trigger}")
    if keep:
        conn.execute("DELETE FROM message_lexemes")
        conn.execute(LEXEME_COUNTS_BUILD)


# bm25's N, average length and a lexeme's idf (``fts.Stats``) in SQL, as
# ``fts.Stats.idf`` computes them (float8 throughout; the same libm ``log``).
_DOCS = "(SELECT docs FROM fts_stats WHERE tbl = 'message_fts')"
_AVGDL = (
    "(SELECT CASE WHEN docs > 0 AND tokens > 0 THEN tokens::float8 / docs ELSE 1.0 END "
    "FROM fts_stats WHERE tbl = 'message_fts')"
)
# Each term's lexeme (``%s``, in the query's order), its bounds, number and idf.
_TERMS = f"""
    SELECT lo, lo AS hi, n, CASE WHEN v > 0 THEN v ELSE 1e-6::float8 END AS idf
    FROM (SELECT x.lo, x.n, ln(greatest(
              (0.5::float8 + {_DOCS} - coalesce(l.docs, 0)) / (0.5::float8 + coalesce(l.docs, 0)),
              1e-300)) AS v
          FROM unnest(%s::text[]) WITH ORDINALITY AS x(lo, n)
          LEFT JOIN message_lexemes l ON l.lexeme = x.lo) i
    ORDER BY n"""


def _formula(avgdl: str) -> str:
    # t.len as float8: an integer times the literal .75 is numeric arithmetic, which
    # took three quarters of the query's time at 1M messages (~1.5 µs a posting).
    return f"* {fts.K1 + 1} / (t.tf + {fts.K1} * ({1 - fts.B} + {fts.B} * t.len::float8 / {avgdl}))"


# One term's postings (a CJK prefix's: a range of lexemes).
_LOOKUP = (
    "SELECT message_id, a, b, len FROM message_terms "
    "WHERE lexeme >= q.lo AND lexeme <= q.hi OFFSET 0"
)


def _scope_joins(where: str) -> str:
    if not where:
        return ""
    return "JOIN messages m ON m.id = t.message_id JOIN sessions s ON s.id = m.session_id"


def ranked_lexemes(
    conn: Conn,
    lexemes: Sequence[str],
    ctx_weight: float,
    scope: tuple[str, list[object]],
    limit: int,
) -> list[tuple[int, float]]:
    """``ranked`` for terms of one lexeme each (the common case), in one statement:
    N, the average length and each lexeme's idf are read by the statement itself
    (``message_lexemes``, once: an init plan), not by a round trip each first.

    Each term's postings are a branch of their own, read in message order from
    the key, so the server merges them and sums each message's postings as they
    stream past (no hash table: at 1M messages one common word's query grouped
    100,000 messages, and the hash aggregate cost more than reading the
    postings). The ``ORDER BY`` puts a message's postings in term order whatever
    the plan: the same float sum every time, bit for bit what ``ranked`` gives."""
    where, params = scope
    if where:
        # A scope filters messages, not scores: its best ``limit`` are the first of
        # the unscoped ranking it holds. A broad one (all but the live session, one
        # role) finds them among the first few hundred, without joining every
        # posting to its message; a narrow one is ranked inside it.
        pool = limit * SCOPED_POOL
        sql, args = _merged(lexemes, ctx_weight, "", [], pool)
        found = conn.execute(
            f"""WITH r AS MATERIALIZED ({sql})
                SELECT NULL, NULL, count(*) FROM r
                UNION ALL (
                SELECT r.message_id, r.score, 0 FROM r
                JOIN messages m ON m.id = r.message_id JOIN sessions s ON s.id = m.session_id
                WHERE true {where} ORDER BY r.score DESC, r.message_id LIMIT %s)""",
            (*args, *params, limit),
        ).fetchall()
        ranked = [(int(r[0]), float(r[1])) for r in found if r[0] is not None]
        read = next(int(r[2]) for r in found if r[0] is None)
        if len(ranked) == limit or read < pool:
            return ranked
    sql, args = _merged(lexemes, ctx_weight, where, params, limit)
    return [(int(r[0]), float(r[1])) for r in conn.execute(sql, args).fetchall()]


# Unscoped candidates read per hit a scoped ranking wants, before it ranks inside
# the scope instead.
SCOPED_POOL = 4


def _merged(
    lexemes: Sequence[str], ctx_weight: float, where: str, params: list[object], limit: int
) -> tuple[str, list[object]]:
    """``ranked_lexemes``' statement and its arguments."""
    joins = (
        " JOIN messages m ON m.id = p.message_id JOIN sessions s ON s.id = m.session_id"
        if where
        else ""
    )
    branches = " UNION ALL ".join(
        f"(SELECT p.message_id, {n} AS n, p.a + %s * p.b AS tf, p.len FROM message_terms p"
        f"{joins} WHERE p.lexeme = %s{where} ORDER BY p.message_id)"
        for n in range(1, len(lexemes) + 1)
    )
    idf = f"(SELECT array_agg(idf ORDER BY n) FROM ({_TERMS}) q)[t.n]"
    sql = f"""
        SELECT t.message_id, sum({idf} * t.tf {_formula(_AVGDL)}) AS score
        FROM (SELECT * FROM ({branches}) u ORDER BY message_id, n) t
        GROUP BY t.message_id ORDER BY score DESC, t.message_id LIMIT %s"""
    args: list[object] = [list(lexemes)]
    for lexeme in lexemes:
        args += [ctx_weight, lexeme, *params]
    return sql, [*args, limit]


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
    avgdl = (stats.tokens / stats.docs if stats.docs else 1.0) or 1.0
    formula = _formula("%s")
    lookup = _LOOKUP
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
        {_scope_joins(where)}
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
