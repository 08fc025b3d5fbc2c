"""An in-memory copy of every message's immutable metadata, for ranking.

Scoring a search needs, for each candidate and its neighbours, the session,
position, time, speaker and whether it is a system message. Reading that from SQLite
for ~600 ids cost ~4 ms of a 20 ms search at 100k messages; these columns
never change once a message is written (no message is ever deleted or
moved: compaction only flips flags), so an append-only copy refreshed by
``id > last`` stays exact. Sessions and speakers are stored as small integer
labels, so a million messages take ~25 MB, not millions of Python strings.

Scoped searches still ask the storage (the scope has its own filters);
this serves the common, unscoped path.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from kenning.storage.query import SearchFilters

if TYPE_CHECKING:
    from kenning.storage import Sessions


class MessageMeta:
    def __init__(self) -> None:
        self.ids = np.zeros(0, dtype=np.int64)
        self.session = np.zeros(0, dtype=np.int32)
        self.seq = np.zeros(0, dtype=np.int64)
        self.created = np.zeros(0, dtype=np.float64)
        self.system = np.zeros(0, dtype=bool)
        self.speaker = np.zeros(0, dtype=np.int32)
        self.names: list[str] = []  # label -> session id
        self._labels: dict[str, int] = {}
        self.speakers: list[str | None] = []  # label -> speaker
        self._speaker_labels: dict[str | None, int] = {}
        self._last = 0

    def refresh(self, sessions: Sessions) -> None:
        """Append the messages written since the last refresh (by any process)."""
        rows = sessions.facts_after(self._last)
        if not rows:
            return
        labels = self._labels
        for r in rows:
            if r[1] not in labels:
                labels[r[1]] = len(self.names)
                self.names.append(r[1])
        said_by = self._speaker_labels
        for r in rows:
            if r[5] not in said_by:
                said_by[r[5]] = len(self.speakers)
                self.speakers.append(r[5])
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
        self.speaker = np.concatenate(
            [self.speaker, np.fromiter((said_by[r[5]] for r in rows), np.int32, n)]
        )
        self._last = int(self.ids[-1])

    def lookup(self, ids: list[Any]) -> dict[int, tuple[str, float, int, str | None]]:
        """id -> (session id, created_at, seq, speaker) for the known, non-system ids."""
        wanted = np.asarray(ids, dtype=np.int64)
        if not len(wanted) or not len(self.ids):
            return {}
        pos = np.searchsorted(self.ids, wanted)
        pos = np.minimum(pos, len(self.ids) - 1)
        hit = (self.ids[pos] == wanted) & ~self.system[pos]
        pos = pos[hit]
        names, speakers = self.names, self.speakers
        return {
            int(i): (names[s], float(c), int(q), speakers[w])
            for i, s, c, q, w in zip(
                self.ids[pos].tolist(),
                self.session[pos].tolist(),
                self.created[pos].tolist(),
                self.seq[pos].tolist(),
                self.speaker[pos].tolist(),
                strict=True,
            )
        }


class CandidateMeta:
    """Metadata of ranking candidates and of their neighbours: from the in-memory
    :class:`MessageMeta` when unscoped, from the storage inside a scope."""

    def __init__(self) -> None:
        self.meta = MessageMeta()
        self.sources: dict[str, str] = {}  # session id -> source (immutable)

    def lookup(
        self, sessions: Sessions, ids: list[Any], scope: SearchFilters, *, pairs: bool = False
    ) -> dict[int, tuple[Any, ...]]:
        """id -> (session, created_at, source, seq, speaker), inside the scope, system
        messages left out.

        With ``pairs``, ``ids`` is a list of [session, seq] looked up on the
        unique (session, seq) index instead.
        """
        if not scope.is_empty():
            scoped = sessions.facts(ids, scope, pairs=pairs)
            return {int(r[0]): tuple(r[1:]) for r in scoped}
        # Unscoped: from the in-memory copy of the messages' metadata (see
        # search.meta), or the storage without the sessions join for (session,
        # seq) pairs; a session's source never changes once written, so it is cached.
        rows: list[tuple[Any, ...]]
        if pairs:
            rows = sessions.facts_at(ids)
        else:
            self.meta.refresh(sessions)
            rows = [(i, *r) for i, r in self.meta.lookup(ids).items()]
        source = self.sources
        unknown = sorted({r[1] for r in rows} - source.keys())
        if unknown:
            if len(source) + len(unknown) > 200_000:  # caps memory only
                source.clear()
            source.update(sessions.sources(unknown))
        return {int(r[0]): (r[1], r[2], source.get(r[1]), r[3], r[4]) for r in rows}

    def with_neighbours(
        self, sessions: Sessions, cand: list[int], scope: SearchFilters
    ) -> dict[int, tuple[Any, ...]]:
        """Metadata of the candidates and of each one's previous and next message.

        A session's messages are almost always appended together, so the
        neighbours are first tried at id ± 1, read in the same query as the
        candidates themselves; only the misses (session edges, interleaved
        sessions) go through the (session, seq) index — looking every
        neighbour up there cost ~1.5 ms per search at 100k messages.
        Neighbours outside the scope or with the system role are left out:
        they score nothing.
        """
        chosen = set(cand)
        near = {i + d for i in cand for d in (-1, 1)} - chosen
        both = self.lookup(sessions, sorted(chosen | near), scope)
        meta = {i: r for i, r in both.items() if i in chosen}
        wanted = {(r[0], r[3] + d) for r in meta.values() for d in (-1, 1) if r[3] + d >= 1}
        found = {i: r for i, r in both.items() if i not in chosen and (r[0], r[3]) in wanted}
        have = {(r[0], r[3]) for r in meta.values()} | {(r[0], r[3]) for r in found.values()}
        missing = sorted(wanted - have)
        if missing:
            found.update(self.lookup(sessions, [list(k) for k in missing], scope, pairs=True))
        return {**meta, **found}
