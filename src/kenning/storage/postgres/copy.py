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
from kenning.storage.postgres.vectors import Kind, hnsw, put, state_set
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
    if table in ("message_vectors", "chunk_vectors"):
        return _insert_vectors(conn, table, rows)
    cols = list(columns)
    values = [list(r) for r in rows]
    if table == "sessions":  # parents are linked in ``finish``
        at = cols.index("parent_id")
        values = [[*r[:at], None, *r[at + 1 :]] for r in values]
    marks = ", ".join("%s" for c in cols)
    with txn(conn):
        with conn.cursor() as cur:
            cur.executemany(
                f"INSERT INTO {table} ({', '.join(cols)}) VALUES ({marks}) "
                f"ON CONFLICT ({_KEYS[table]}) DO NOTHING",
                values,
            )
            new = max(cur.rowcount, 0)  # the rows of every statement (psycopg 3.1+)
        if table == "memory_chunks" and new:
            docs = [(int(r[0]), str(r[5])[:MAX_INDEX_CHARS], "") for r in rows]
            write_docs(conn, "chunk", docs)
        if table == "sessions":
            _link_parents(conn, rows, columns.index("parent_id"))
    return new


def _insert_vectors(conn: Conn, table: str, rows: list[tuple[Any, ...]]) -> int:
    """(id, float32 blob) rows through ``vectors.put`` (binary COPY), the blobs as they are."""
    kind: Kind = "message" if table == "message_vectors" else "chunk"
    items = [(int(r[0]), np.frombuffer(bytes(r[1]), np.float32)) for r in rows]
    with txn(conn):
        new = put(conn, kind, items, False)
        if kind == "message":
            conn.execute(
                "DELETE FROM search_embed_queue q USING message_vectors v "
                "WHERE v.message_id = q.message_id AND q.message_id = ANY(%s)",
                ([i for i, _ in items],),
            )
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
