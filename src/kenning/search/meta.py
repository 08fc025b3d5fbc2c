"""An in-memory copy of every message's immutable metadata, for ranking.

Scoring a search needs, for each candidate and its neighbours, the session,
position, time and whether it is a system message. Reading that from SQLite
for ~600 ids cost ~4 ms of a 20 ms search at 100k messages; these columns
never change once a message is written (no message is ever deleted or
moved: compaction only flips flags), so an append-only copy refreshed by
``id > last`` stays exact. Sessions are stored as small integer labels, so a
million messages take ~21 MB, not a million Python strings.

Scoped searches still read SQL (the scope is a join with its own filters);
this serves the common, unscoped path.
"""

from __future__ import annotations

import sqlite3
from typing import Any

import numpy as np


class MessageMeta:
    def __init__(self) -> None:
        self.ids = np.zeros(0, dtype=np.int64)
        self.session = np.zeros(0, dtype=np.int32)
        self.seq = np.zeros(0, dtype=np.int64)
        self.created = np.zeros(0, dtype=np.float64)
        self.system = np.zeros(0, dtype=bool)
        self.names: list[str] = []  # label -> session id
        self._labels: dict[str, int] = {}
        self._last = 0

    def refresh(self, conn: sqlite3.Connection) -> None:
        """Append the messages written since the last refresh (by any process)."""
        rows = conn.execute(
            "SELECT id, session_id, seq, created_at, role = 'system' FROM messages "
            "WHERE id > ? ORDER BY id",
            (self._last,),
        ).fetchall()
        if not rows:
            return
        labels = self._labels
        for r in rows:
            if r[1] not in labels:
                labels[r[1]] = len(self.names)
                self.names.append(r[1])
        n = len(rows)
        self.ids = np.concatenate([self.ids, np.fromiter((r[0] for r in rows), np.int64, n)])
        self.session = np.concatenate(
            [self.session, np.fromiter((labels[r[1]] for r in rows), np.int32, n)]
        )
        self.seq = np.concatenate([self.seq, np.fromiter((r[2] for r in rows), np.int64, n)])
        self.created = np.concatenate(
            [self.created, np.fromiter((r[3] or 0.0 for r in rows), np.float64, n)]
        )
        self.system = np.concatenate([self.system, np.fromiter((r[4] for r in rows), bool, n)])
        self._last = int(self.ids[-1])

    def lookup(self, ids: list[Any]) -> dict[int, tuple[str, float, int]]:
        """id -> (session id, created_at, seq) for the known, non-system ids."""
        wanted = np.asarray(ids, dtype=np.int64)
        if not len(wanted) or not len(self.ids):
            return {}
        pos = np.searchsorted(self.ids, wanted)
        pos = np.minimum(pos, len(self.ids) - 1)
        hit = (self.ids[pos] == wanted) & ~self.system[pos]
        pos = pos[hit]
        names = self.names
        return {
            int(i): (names[s], float(c), int(q))
            for i, s, c, q in zip(
                self.ids[pos].tolist(),
                self.session[pos].tolist(),
                self.created[pos].tolist(),
                self.seq[pos].tolist(),
                strict=True,
            )
        }
