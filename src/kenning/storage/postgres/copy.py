"""Writing copied rows into PostgreSQL (``storage.admin.copy_archive``): idempotent batches.

Every batch is one transaction and skips rows that are already there, so a
killed copy resumes and a repeated one writes nothing. Sessions arrive
without their parent first (a child may be copied before its parent) and get
it in ``finish``; vectors get their pgvector column; chunks their tsvectors.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import numpy as np

from kenning.storage.postgres.connection import Conn, txn
from kenning.storage.postgres.index import write_docs
from kenning.storage.postgres.vectors import hnsw, literal, state_set
from kenning.storage.text import MAX_INDEX_CHARS

_KEYS = {
    "sessions": "id",
    "messages": "id",
    "memory_files": "path",
    "memory_chunks": "id",
    "message_vectors": "message_id",
    "chunk_vectors": "chunk_id",
    "recalls": "id",
    "recall_hits": "recall_id, rank",
    "embed_cache": "identity, kind, hash",
}


def insert(conn: Conn, table: str, columns: Sequence[str], rows: list[tuple[Any, ...]]) -> int:
    """Insert the rows not already in ``table``; how many were new."""
    cols = list(columns)
    values = [list(r) for r in rows]
    if table == "sessions":  # parents are linked in ``finish``
        at = cols.index("parent_id")
        values = [[*r[:at], None, *r[at + 1 :]] for r in values]
    if table in ("message_vectors", "chunk_vectors"):
        cols.append("e")
        values = [[*r, literal(np.frombuffer(bytes(r[1]), np.float32))] for r in values]
    marks = ", ".join("%s::vector" if c == "e" else "%s" for c in cols)
    with txn(conn):
        before = _count(conn, table)
        with conn.cursor() as cur:
            cur.executemany(
                f"INSERT INTO {table} ({', '.join(cols)}) VALUES ({marks}) "
                f"ON CONFLICT ({_KEYS[table]}) DO NOTHING",
                values,
            )
        new = _count(conn, table) - before
        if table == "memory_chunks" and new:
            docs = [(int(r[0]), str(r[5])[:MAX_INDEX_CHARS], "") for r in rows]
            write_docs(conn, "chunk", docs)
        if table == "message_vectors":
            conn.execute(
                "DELETE FROM search_embed_queue q USING message_vectors v "
                "WHERE v.message_id = q.message_id AND q.message_id = ANY(%s)",
                ([int(r[0]) for r in rows],),
            )
        if table == "sessions":
            _link_parents(conn, rows, columns.index("parent_id"))
    return new


def _link_parents(conn: Conn, rows: list[tuple[Any, ...]], at: int) -> None:
    """Parents of this batch that exist already (the rest in ``finish``)."""
    pairs = [(r[0], r[at]) for r in rows if r[at] is not None]
    if pairs:
        conn.execute(
            "UPDATE sessions s SET parent_id = p.parent FROM unnest(%s::text[], %s::text[]) "
            "AS p(id, parent) WHERE s.id = p.id AND s.parent_id IS NULL "
            "AND EXISTS (SELECT 1 FROM sessions x WHERE x.id = p.parent)",
            ([p[0] for p in pairs], [p[1] for p in pairs]),
        )


def _count(conn: Conn, table: str) -> int:
    row = conn.execute(f"SELECT count(*) FROM {table}").fetchone()
    return int(row[0]) if row else 0


def finish(conn: Conn, state: dict[str, str], parents: list[tuple[str, str]]) -> None:
    """Parent links, identities and sequences after the rows: the last, idempotent step."""
    with txn(conn):
        if parents:
            conn.execute(
                "UPDATE sessions s SET parent_id = p.parent "
                "FROM unnest(%s::text[], %s::text[]) AS p(id, parent) "
                "WHERE s.id = p.id AND s.parent_id IS NULL",
                ([p[0] for p in parents], [p[1] for p in parents]),
            )
        for key, value in state.items():
            state_set(conn, key, value)
        if "identity" in state:
            hnsw(conn, int(json.loads(state["identity"])["dims"]))
        for table in ("messages", "memory_chunks", "recalls"):
            conn.execute(
                f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
                f"GREATEST((SELECT max(id) FROM {table}), 1))"
            )
