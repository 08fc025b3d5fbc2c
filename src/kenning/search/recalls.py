"""Reading hits back and recording recalls: what each search returned.

``recalls`` holds one row per search (query, time, mode, filters) and
``recall_hits`` one row per returned hit (kind, id, rank, score) — the signal
later used to promote often-recalled memories. Recording is part of every
search; a read-only database skips it with a note (see ``SearchEngine``).
"""

from __future__ import annotations

import json
import sqlite3

from kenning.search.index import write_txn
from kenning.search.models import Kind, SearchFilters, SearchHit


def load_hits(conn: sqlite3.Connection, scored: list[tuple[float, Kind, int]]) -> list[SearchHit]:
    """The ranked (score, kind, id) list as hits with their stored text, in order."""
    msg_ids = [i for _, k, i in scored if k == "message"]
    chunk_ids = [i for _, k, i in scored if k == "chunk"]
    msgs = {
        int(r["id"]): r
        for r in conn.execute(
            "SELECT m.id, m.session_id, m.seq, m.role, m.speaker, m.created_at, m.content, "
            "s.source FROM messages m JOIN sessions s ON s.id = m.session_id "
            "WHERE m.id IN (SELECT value FROM json_each(?))",
            (json.dumps(msg_ids),),
        )
    }
    chunks = {
        int(r["id"]): r
        for r in conn.execute(
            "SELECT id, path, line_start, line_end, text FROM memory_chunks "
            "WHERE id IN (SELECT value FROM json_each(?))",
            (json.dumps(chunk_ids),),
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


def record(
    conn: sqlite3.Connection,
    query: str,
    hits: list[SearchHit],
    mode: str,
    scope: SearchFilters,
    at: float,
) -> int:
    """Store the query and each returned hit (kind, id, rank, score); returns the recall id."""
    filters = (
        None
        if scope.is_empty()
        else json.dumps({k: v for k, v in scope.__dict__.items() if v not in (None, ())})
    )
    with write_txn(conn):
        cur = conn.execute(
            "INSERT INTO recalls (query, at, mode, filters) VALUES (?, ?, ?, ?) RETURNING id",
            (query, at, mode, filters),
        )
        recall_id = int(cur.fetchone()[0])
        conn.executemany(
            "INSERT INTO recall_hits (recall_id, rank, kind, item_id, score) "
            "VALUES (?, ?, ?, ?, ?)",
            [(recall_id, rank, h.kind, h.id, h.score) for rank, h in enumerate(hits, 1)],
        )
    return recall_id
