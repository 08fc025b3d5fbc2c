"""The vector matrix search ranks with; what the index holds is :mod:`kenning.storage.identity`.

A message is indexed as its document (``message_docs``: ``body`` = the
message, ``ctx`` = the message it replies to) and embedded as the passage
"previous + current"; the storage (``kenning.storage``) keeps the rows in
step with the archive and applies these rules.

The vectors' identity (embedder name, dims, version, passage recipe) is
stored with them; vectors of another identity are never mixed in: the
storage's ``vectors.check_identity`` reports the mismatch and
``vectors.reset`` clears them so everything is re-embedded (the embedding
cache makes that cheap when the texts are unchanged).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

import numpy as np

from kenning.search import pages

if TYPE_CHECKING:
    from kenning.storage.base import Vectors


class VectorSet:
    """All vectors of one table in one float32 matrix, refreshed incrementally.

    New rows (higher ``n``) are appended into a growing buffer; a deletion
    anywhere (``vectors.deletions`` changes) triggers one full reload, which bumps
    ``generation`` (so derived structures know rows moved). ``positions``
    maps item ids to matrix rows (-1 when an item has no vector).
    """

    def __init__(self, kind: Literal["message", "chunk"]) -> None:
        self.kind = kind
        self._buf = np.zeros((0, 0), dtype=np.float32)
        self._ids = np.zeros(0, dtype=np.int64)
        self._size = 0
        self._last_n = 0
        self._deletes: str | None = None
        self._sorted_ids = np.zeros(0, dtype=np.int64)
        self._order = np.zeros(0, dtype=np.int64)
        self.generation = 0

    @property
    def matrix(self) -> np.ndarray:
        return self._buf[: self._size]

    @property
    def ids(self) -> np.ndarray:
        return self._ids[: self._size]

    def __len__(self) -> int:
        return self._size

    def refresh(self, vectors: Vectors, dims: int) -> None:
        deletes = vectors.deletions(self.kind)
        if deletes != self._deletes or (self._size and self._buf.shape[1] != dims):
            self._size, self._last_n, self._deletes = 0, 0, deletes
            self.generation += 1
            self._buf = np.zeros((0, dims), dtype=np.float32)
            self._ids = np.zeros(0, dtype=np.int64)
        rows = [r for r in vectors.since(self.kind, self._last_n) if len(r[2]) == dims * 4]
        if not rows:
            return
        need = self._size + len(rows)
        if need > len(self._buf) or self._buf.shape[1] != dims:
            cap = max(need, 2 * len(self._buf), 1024)
            buf = pages.zeros(cap, dims, np.float32)
            ids = np.zeros(cap, dtype=np.int64)
            buf[: self._size] = self._buf[: self._size]
            ids[: self._size] = self._ids[: self._size]
            self._buf, self._ids = buf, ids
        block = np.frombuffer(b"".join(r[2] for r in rows), dtype=np.float32)
        self._buf[self._size : need] = block.reshape(len(rows), dims)
        self._ids[self._size : need] = [r[1] for r in rows]
        self._size = need
        self._last_n = int(rows[-1][0])
        self._order = np.argsort(self.ids, kind="stable")
        self._sorted_ids = self.ids[self._order]

    def positions(self, item_ids: np.ndarray) -> np.ndarray:
        if not self._size or not len(item_ids):
            return np.full(len(item_ids), -1, dtype=np.int64)
        p = np.minimum(np.searchsorted(self._sorted_ids, item_ids), self._size - 1)
        found = self._sorted_ids[p] == item_ids
        return np.where(found, self._order[p], -1)


def lookup(sorted_keys: np.ndarray, order: np.ndarray, wanted: np.ndarray) -> np.ndarray:
    """Index (into the unsorted keys) of each wanted key, or -1 when absent."""
    if not len(sorted_keys):
        return np.full(len(wanted), -1, dtype=np.int64)
    p = np.minimum(np.searchsorted(sorted_keys, wanted), len(sorted_keys) - 1)
    return np.where(sorted_keys[p] == wanted, order[p], -1).astype(np.int64)


def spread(
    ids: np.ndarray, by_id: dict[int, float], out: np.ndarray, *, values: bool = False
) -> np.ndarray:
    """``out`` with, at each sorted ``ids`` position present in ``by_id``, its value
    (``values``) or 1.0 (membership)."""
    if not by_id or not len(ids):
        return out
    keys = np.fromiter(by_id.keys(), np.int64, len(by_id))
    p = np.minimum(np.searchsorted(ids, keys), len(ids) - 1)
    ok = ids[p] == keys
    out[p[ok]] = np.fromiter(by_id.values(), np.float64, len(by_id))[ok] if values else 1.0
    return out
