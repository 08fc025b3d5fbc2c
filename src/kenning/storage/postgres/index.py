"""The full-text index on PostgreSQL: ``message_fts`` / ``chunk_fts`` tsvectors.

Triggers (migration m002) queue every new or edited message; ``sync`` drains
the queue, writing each message's tsvector (``body`` weighted A, ``ctx`` — the
message it replies to — weighted B, both with CJK bigrams). Each batch
commits on its own, so an interrupted run keeps what it finished.

Matching: user text becomes tsquery lexemes only through the ``kenning``
text search configuration (quoted, so no syntax error is possible), scope
filters are part of the SQL, and scores are FTS5's ``-bm25`` (``fts``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, Literal

from kenning.storage.identity import indexable, message_docs
from kenning.storage.postgres import fts, postings
from kenning.storage.postgres import scope as scope_sql
from kenning.storage.postgres.connection import (
    Conn,
    raise_build_memory,
    translate_errors,
    txn,
    vacuum,
)
from kenning.storage.query import Kind, SearchFilters, SearchHit
from kenning.storage.sqlite.index import CTX_WEIGHT
from kenning.storage.text import has_cjk

TABLES = {"message": ("message_fts", "message_id"), "chunk": ("chunk_fts", "chunk_id")}
Table = Literal["message", "chunk"]

ROWS_WITH_PREVIOUS = """
    SELECT m.id, m.role, m.speaker, m.content, m.tool_calls,
           p.role AS p_role, p.speaker AS p_speaker, p.content AS p_content,
           p.tool_calls AS p_tool_calls
    FROM messages m
    LEFT JOIN LATERAL (
        SELECT x.role, x.speaker, x.content, x.tool_calls FROM messages x
        WHERE x.session_id = m.session_id AND x.seq < m.seq AND x.role <> 'system'
        ORDER BY x.seq DESC LIMIT 1) p ON true
    WHERE m.id = ANY(%s)
"""

TSV = "setweight(to_tsvector('kenning', b), 'A') || setweight(to_tsvector('kenning', c), 'B')"

# term -> its match form / its indexed lexemes. The configuration is fixed,
# so these never go stale; the bound only caps memory.
_MATCH: dict[str, fts.Term] = {}
_INDEXED: dict[str, frozenset[str]] = {}
_CACHE_MAX = 50_000


def write_docs(conn: Conn, table: Table, docs: Sequence[tuple[int, str, str]]) -> None:
    """Upsert (id, body, ctx) documents into ``table``'s tsvectors."""
    name, id_col = TABLES[table]
    if not docs:
        return
    ids = [d[0] for d in docs]
    if table == "message":
        postings.drop(conn, ids)
    bodies = [fts.prepared(d[1]) for d in docs]
    ctxs = [fts.prepared(d[2]) for d in docs]
    conn.execute(
        f"""INSERT INTO {name} ({id_col}, tsv, body_len, ctx_len)
            SELECT id, {TSV}, bl, cl
            FROM unnest(%s::bigint[], %s::text[], %s::text[], %s::int[], %s::int[])
                 AS t(id, b, c, bl, cl)
            ON CONFLICT ({id_col}) DO UPDATE SET tsv = EXCLUDED.tsv,
                body_len = EXCLUDED.body_len, ctx_len = EXCLUDED.ctx_len""",
        (ids, bodies, ctxs, [len(b.split()) for b in bodies], [len(c.split()) for c in ctxs]),
    )
    if table == "message":
        postings.write(conn, ids)


# From this many queued messages, when more are queued than indexed, ``sync``
# is a bulk load (``PostgresIndex._sync_bulk``).
BULK_AT = 20_000


def _queued(conn: Conn) -> tuple[int, bool]:
    """Messages queued for the index, and whether indexing them is a bulk load."""
    row = conn.execute(
        "SELECT (SELECT count(*) FROM search_fts_queue), docs FROM fts_stats "
        "WHERE tbl = 'message_fts'"
    ).fetchone()
    if row is None:
        return 0, False
    queued = int(row[0])
    return queued, queued >= BULK_AT and queued > int(row[1])


def _sync_batch(conn: Conn, batch: int, after: int = 0) -> list[int]:
    """Index up to ``batch`` queued messages above id ``after``, in one transaction
    (a savepoint in a bulk load, which passes the last id it did: the queue's
    key then skips its own deletions instead of stepping over them again);
    their ids."""
    with txn(conn):
        ids = [
            int(r[0])
            for r in conn.execute(
                "SELECT message_id FROM search_fts_queue WHERE message_id > %s "
                "ORDER BY 1 LIMIT %s FOR UPDATE SKIP LOCKED",
                (after, batch),
            )
        ]
        if not ids:
            return ids
        rows = indexable(conn.execute(ROWS_WITH_PREVIOUS, (ids,)).fetchall())
        docs = []
        for row in rows:
            body, prev = message_docs(row)
            docs.append((int(row["id"]), body, prev or ""))
        write_docs(conn, "message", docs)
        conn.execute("DELETE FROM search_fts_queue WHERE message_id = ANY(%s)", (ids,))
    return ids


@translate_errors
class PostgresIndex:
    def __init__(self, conn: Callable[[], Conn]) -> None:
        self._conn = conn
        # Rows matching each term's tsquery (bm25's idf), per table, valid while
        # the table's counters (docs, tokens, writes) are the ones read with them.
        self._hits: dict[Table, tuple[tuple[int, ...], dict[str, int]]] = {}

    # -- keeping it in step ------------------------------------------------

    def pending(self) -> int:
        return int(self._conn().execute("SELECT count(*) FROM search_fts_queue").fetchone()[0])  # type: ignore[index]

    def sync(self, *, batch: int = 2000) -> int:
        conn = self._conn()
        queued, bulk = _queued(conn)
        if not queued:  # every search syncs first: an empty queue costs one statement
            return 0
        if bulk:
            return self._sync_bulk(conn, batch)
        done = 0
        while ids := _sync_batch(conn, batch):
            done += len(ids)
        return done

    def _sync_bulk(self, conn: Conn, batch: int) -> int:
        """A bulk load (an import, a migration, a rebuild: more queued than indexed):
        the postings' key and the tsvectors' GIN index are dropped, every queued
        message indexed and both built once, in one transaction. Kept up row by
        row, the key's inserts land all over a B-tree many times the size of
        shared memory; sorted once, they take a fraction of that. Other
        processes' searches wait meanwhile; an interrupted load leaves the index
        as it was (its messages stay queued). The lexeme counts are recounted at
        the end rather than kept batch by batch (``postings.bulk_counts``)."""
        done = 0
        with txn(conn):
            conn.execute("LOCK TABLE message_fts, message_terms IN SHARE ROW EXCLUSIVE MODE")
            if not _queued(conn)[1]:  # another process loaded them while this one waited
                while ids := _sync_batch(conn, batch):
                    done += len(ids)
                return done
            postings.bulk_counts(conn, keep=False)
            # Queued messages indexed before lose their postings while the key finds them.
            conn.execute(
                "DELETE FROM message_fts WHERE message_id IN "
                "(SELECT message_id FROM search_fts_queue)"
            )
            conn.execute("ALTER TABLE message_terms DROP CONSTRAINT message_terms_pkey")
            conn.execute("DROP INDEX message_fts_tsv")
            last = 0
            while ids := _sync_batch(conn, batch, last):
                done, last = done + len(ids), ids[-1]
            raise_build_memory(conn)
            conn.execute(
                "ALTER TABLE message_terms ADD PRIMARY KEY (lexeme, message_id) INCLUDE (a, b, len)"
            )
            conn.execute("CREATE INDEX message_fts_tsv ON message_fts USING gin (tsv)")
            postings.bulk_counts(conn, keep=True)
        vacuum(conn, ("message_terms", "message_lexemes", "message_fts", "search_fts_queue"))
        return done

    def reset(self) -> None:
        conn = self._conn()
        with txn(conn):
            conn.execute("DELETE FROM message_fts")
            conn.execute("DELETE FROM search_fts_queue")
            conn.execute(
                "INSERT INTO search_fts_queue SELECT id FROM messages WHERE role <> 'system'"
            )

    # -- statistics ----------------------------------------------------------

    def _stats(self, table: Table) -> fts.Stats:
        return self._state(table)[0]

    def _state(self, table: Table) -> tuple[fts.Stats, dict[str, int]]:
        """The table's bm25 statistics, and the term hits counted since they last changed."""
        row = (
            self._conn()
            .execute(
                "SELECT docs, tokens, writes FROM fts_stats WHERE tbl = %s", (TABLES[table][0],)
            )
            .fetchone()
        )
        key = (0, 0, 0) if row is None else (int(row[0]), int(row[1]), int(row[2]))
        cached = self._hits.get(table)
        if cached is None or cached[0] != key:
            cached = self._hits[table] = (key, {})
        return fts.Stats(key[0], key[1]), cached[1]

    def _term_hits(
        self, table: Table, terms: Sequence[fts.Term], known: dict[str, int]
    ) -> list[int]:
        """Rows of ``table`` matching each term (any column), counted once per index state."""
        name = TABLES[table][0]
        ask = [t for t in dict.fromkeys(t.tsquery() for t in terms) if t not in known]
        single = {t.tsquery(): t.lexemes[0] for t in terms if len(t.lexemes) == 1 and not t.prefix}
        conn = self._conn()
        if table == "message":  # one lexeme: its postings, no tsvector read
            lexemes = [single[q] for q in ask if q in single]
            counts = postings.lexeme_docs(conn, lexemes, body_only=False)
            known.update((q, counts[single[q]]) for q in ask if q in single)
            ask = [q for q in ask if q not in single]
        if ask:
            rows = conn.execute(
                f"SELECT q, (SELECT count(*) FROM {name} WHERE tsv @@ q::tsquery) "
                "FROM unnest(%s::text[]) AS t(q)",
                (ask,),
            )
            known.update((str(q), int(n)) for q, n in rows)
        return [known[t.tsquery()] for t in terms]

    def fingerprint(self) -> bytes | None:
        """Changes whenever ``message_fts`` changes: its write counter (kept by trigger)."""
        row = (
            self._conn()
            .execute("SELECT writes, docs FROM fts_stats WHERE tbl = 'message_fts'")
            .fetchone()
        )
        return None if row is None else f"{row[0]}:{row[1]}".encode()

    def doc_count(self, table: Table = "message") -> int:
        return self._stats(table).docs

    def _indexed(self, terms: Sequence[str]) -> list[frozenset[str]]:
        """The lexemes the index holds for each term (its stem; CJK bigrams)."""
        self._forms(terms, _INDEXED)
        return [_INDEXED[t] for t in terms]

    def _match_terms(self, terms: Sequence[str]) -> list[fts.Term]:
        """Each term as the phrase (or CJK prefix) it matches."""
        self._forms(terms, _MATCH)
        return [_MATCH[t] for t in terms]

    def _forms(
        self, terms: Sequence[str], cache: dict[str, Any], body_docs: dict[str, int] | None = None
    ) -> None:
        """Both forms (``_INDEXED``, ``_MATCH``) of each of ``terms`` not in ``cache``,
        in one round trip: a search asks for one (the counts that prune its terms),
        then the other; with ``body_docs``, the messages whose body holds each of
        their lexemes go there too (what the pruning asks next). A full cache is
        emptied first, so every term asked for is in it afterwards."""
        if all(t in cache for t in terms):
            return
        if len(_INDEXED) >= _CACHE_MAX or len(_MATCH) >= _CACHE_MAX:
            _INDEXED.clear()
            _MATCH.clear()
        ask = sorted({t for t in terms if t not in cache})
        rows = self._conn().execute(
            "SELECT x, f.lexemes, f.docs, phraseto_tsquery('kenning', w)::text "
            "FROM unnest(%s::text[], %s::text[], %s::text[]) AS t(x, p, w) "
            "CROSS JOIN LATERAL (SELECT array_agg(u.lexeme ORDER BY u.lexeme) AS lexemes, "
            "    array_agg(coalesce(l.body_docs, 0) ORDER BY u.lexeme) AS docs "
            "    FROM unnest(to_tsvector('kenning', p)) u "
            "    LEFT JOIN message_lexemes l ON l.lexeme = u.lexeme) f",
            (ask, [fts.prepared(t) for t in ask], [" ".join(fts.tokens(t)) for t in ask]),
        )
        for term, lexemes, docs, query in rows:
            _INDEXED[str(term)] = frozenset(lexemes or ())
            if body_docs is not None:
                body_docs.update(zip(lexemes or (), docs or (), strict=True))
            single_cjk = len(term) == 1 and has_cjk(term)
            matched = (term,) if single_cjk else fts.lexemes_of(str(query or ""))
            _MATCH[str(term)] = fts.Term(matched, prefix=single_cjk)

    def stems(self, terms: Iterable[str]) -> list[str]:
        """Each term as the index holds it: its stem (the longest token if it splits)."""
        terms = list(terms)
        forms = self._indexed(terms)
        return [max(sorted(f), key=len) if f else t for t, f in zip(terms, forms, strict=True)]

    def term_doc_counts(
        self, table: Table, terms: list[str], known: dict[str, int] | None = None
    ) -> list[int]:
        """Documents whose body holds each term (max over the term's indexed lexemes)."""
        if not terms:
            return []
        counts = known if known is not None else {}
        if table == "message":  # terms not seen before: their lexemes come counted
            self._forms(terms, _INDEXED, counts)
        tokens = self._indexed(terms)
        ask = sorted(set().union(*tokens) - counts.keys())
        if ask and table == "message":
            counts.update(postings.lexeme_docs(self._conn(), ask, body_only=True))
        elif ask:
            name = TABLES[table][0]
            rows = self._conn().execute(
                f"SELECT x, (SELECT count(*) FROM {name} WHERE tsv @@ q::tsquery) "
                "FROM unnest(%s::text[], %s::text[]) AS t(x, q)",
                (ask, [f"{fts.quote_lexeme(x)}:A" for x in ask]),
            )
            counts.update((str(t), int(d)) for t, d in rows)
        return [max((counts[t] for t in forms), default=0) for forms in tokens]

    # -- matching ------------------------------------------------------------

    def _ranked(
        self,
        table: Table,
        terms: list[str],
        joins: str,
        where: str,
        params: list[object],
        limit: int,
        ctx_weight: float = CTX_WEIGHT,
    ) -> list[tuple[int, float]]:
        matched = [t for t in self._match_terms([t for t in terms if t]) if t.lexemes]
        query = fts.or_query(matched)
        if not query:
            return []
        if table == "message" and all(len(t.lexemes) == 1 and not t.prefix for t in matched):
            lexemes = [t.lexemes[0] for t in matched]
            scope = (where, params)
            return postings.ranked_lexemes(self._conn(), lexemes, ctx_weight, scope, limit)
        stats, known = self._state(table)
        hits = self._term_hits(table, matched, known)
        idf = [stats.idf(h) for h in hits]
        if table == "message":
            return postings.ranked(
                self._conn(), matched, idf, stats, ctx_weight, (where, params), limit
            )
        name, id_col = TABLES[table]
        exact = sorted({x for t in matched if not t.prefix for x in t.lexemes})
        prefixes = sorted({t.lexemes[0] + "%" for t in matched if t.prefix})
        rows = (
            self._conn()
            .execute(
                f"""SELECT f.{id_col}, f.body_len + f.ctx_len,
                       ARRAY(SELECT u.lexeme || ' ' || array_to_string(u.weights, '')
                             FROM unnest(f.tsv) u
                             WHERE u.lexeme = ANY(%s) OR u.lexeme LIKE ANY(%s))
                FROM {name} f {joins} WHERE f.tsv @@ %s::tsquery {where}""",
                (exact, prefixes, query, *params),
            )
            .fetchall()
        )
        parsed = [(int(r[0]), int(r[1]), fts.parse_entries(r[2])) for r in rows]
        return fts.bm25(parsed, matched, idf, stats, ctx_weight, limit)

    def match_messages(
        self, terms: list[str], scope: SearchFilters, limit: int
    ) -> list[tuple[int, float]]:
        """(message id, -bm25) best first for the OR of ``terms``, inside ``scope``."""
        where, params = scope_sql.messages(scope)
        joins = (
            "JOIN messages m ON m.id = f.message_id JOIN sessions s ON s.id = m.session_id"
            if where
            else ""
        )
        return self._ranked("message", terms, joins, where, params, limit)

    def match_chunks(
        self, terms: list[str], scope: SearchFilters, limit: int
    ) -> list[tuple[int, float]]:
        where, params = scope_sql.chunks(scope)
        joins = "JOIN memory_chunks c ON c.id = f.chunk_id JOIN memory_files mf ON mf.path = c.path"
        return self._ranked("chunk", terms, joins, where, params, limit)

    def pending_matches(
        self, terms: list[str], scope: SearchFilters, limit: int
    ) -> dict[int, list[int]]:
        """Queued messages' terms, their tsvectors computed in the query (nothing stored)."""
        if not terms:
            return {}
        conn = self._conn()
        where, params = scope_sql.messages(scope)
        ids = [
            int(r[0])
            for r in conn.execute(
                "SELECT m.id FROM search_fts_queue q JOIN messages m ON m.id = q.message_id "
                f"JOIN sessions s ON s.id = m.session_id WHERE true {where} "
                "ORDER BY m.id DESC LIMIT %s",
                (*params, limit),
            )
        ]
        rows = indexable(conn.execute(ROWS_WITH_PREVIOUS, (ids,)).fetchall()) if ids else []
        if not rows:
            return {}
        docs = [int(r["id"]) for r in rows]
        bodies = [fts.prepared(message_docs(r)[0]) for r in rows]
        held: dict[int, list[int]] = {}
        for n, term in enumerate(self._match_terms(terms)):
            if not term.lexemes:
                continue
            for (item,) in conn.execute(
                "SELECT id FROM unnest(%s::bigint[], %s::text[]) AS t(id, b) "
                "WHERE to_tsvector('kenning', b) @@ %s::tsquery",
                (docs, bodies, term.tsquery()),
            ):
                held.setdefault(int(item), []).append(n)
        return held

    def match_plain(self, match: str, limit: int) -> list[int]:
        """Message ids for an FTS5 OR-of-phrases expression by plain bm25 (no column
        weights): the bare-full-text baseline the benchmarks rank against."""
        terms = [p for p, _ in fts.fts5_phrases(match)]
        rows = self._ranked("message", terms, "", "", [], limit, ctx_weight=1.0)
        return [i for i, _ in rows]

    def containing(self, table: Table, term: str, ids: Sequence[int]) -> list[int]:
        """Which of ``ids`` hold ``term`` (through the index's own configuration)."""
        matched = self._match_terms([term])[0]
        if not matched.lexemes or not ids:
            return []
        name, id_col = TABLES[table]
        rows = self._conn().execute(
            f"SELECT {id_col} FROM {name} WHERE tsv @@ %s::tsquery AND {id_col} = ANY(%s) "
            "ORDER BY 1",
            (matched.tsquery(), list(ids)),
        )
        return [int(r[0]) for r in rows]

    def containing_each(
        self, table: Table, terms: Sequence[str], ids: Sequence[int]
    ) -> list[list[int]]:
        """``containing`` for every term in one statement (a search's coverage asks
        for each query term: one round trip instead of one a term)."""
        queries = [t.tsquery() if t.lexemes else None for t in self._match_terms(list(terms))]
        held: list[list[int]] = [[] for _ in terms]
        if not ids or not any(queries):
            return held
        name, id_col = TABLES[table]
        rows = self._conn().execute(
            f"SELECT q.n, f.{id_col} FROM unnest(%s::text[]) WITH ORDINALITY AS q(tsq, n) "
            f"JOIN {name} f ON f.{id_col} = ANY(%s) AND f.tsv @@ q.tsq::tsquery "
            "WHERE q.tsq IS NOT NULL ORDER BY 1, 2",
            (queries, list(ids)),
        )
        for n, item in rows:
            held[int(n) - 1].append(int(item))
        return held

    def hits(self, scored: list[tuple[float, Kind, int]]) -> list[SearchHit]:
        """The ranked (score, kind, id) list as hits with their stored text, in order."""
        conn = self._conn()
        msg_ids = [i for _, k, i in scored if k == "message"]
        chunk_ids = [i for _, k, i in scored if k == "chunk"]
        # A kind with no hits costs no round trip.
        msgs = {
            int(r["id"]): r
            for r in (
                conn.execute(
                    "SELECT m.id, m.session_id, m.seq, m.role, m.speaker, m.created_at, "
                    "m.content, s.source FROM messages m JOIN sessions s ON s.id = m.session_id "
                    "WHERE m.id = ANY(%s)",
                    (msg_ids,),
                )
                if msg_ids
                else ()
            )
        }
        chunks = {
            int(r["id"]): r
            for r in (
                conn.execute(
                    "SELECT id, path, line_start, line_end, text FROM memory_chunks "
                    "WHERE id = ANY(%s)",
                    (chunk_ids,),
                )
                if chunk_ids
                else ()
            )
        }
        hits: list[SearchHit] = []
        for score, kind, item in scored:
            if kind == "message" and item in msgs:
                r = msgs[item]
                hits.append(
                    SearchHit(
                        "message", score, item, session_id=r["session_id"], seq=r["seq"],
                        role=r["role"], speaker=r["speaker"], created_at=r["created_at"],
                        content=r["content"], source=r["source"],
                    )
                )  # fmt: skip
            elif kind == "chunk" and item in chunks:
                c = chunks[item]
                hits.append(
                    SearchHit(
                        "chunk", score, item, path=c["path"], line_start=c["line_start"],
                        line_end=c["line_end"], text=c["text"],
                    )
                )  # fmt: skip
        return hits

    def message_texts(self, ids: list[int]) -> dict[int, str]:
        rows = self._conn().execute(
            "SELECT id, content FROM messages WHERE id = ANY(%s)", (list(ids),)
        )
        return {int(r[0]): r[1] for r in rows}
