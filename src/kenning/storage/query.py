"""The values the search engine takes and returns: filters, hits, results.

Filters are a scope, not a preference: the storage turns them into its own
conditions (``storage.sqlite.scope``) on both the lexical and the dense side,
so nothing outside them is ever scored or returned. Hits are plain frozen
values that serialise with ``to_dict``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal

Kind = Literal["message", "chunk"]
KINDS: tuple[Kind, ...] = ("message", "chunk")
# What `kenning search --kind` and ``kenning.Home.search(kind=…)`` name.
SCOPES: dict[str, tuple[Kind, ...]] = {
    "all": KINDS,
    "messages": ("message",),
    "memory": ("chunk",),
}


@dataclass(frozen=True)
class SearchFilters:
    """Scope of a search over messages. Empty tuples / None mean "any".

    Memory chunks belong to the home, not to a session or user: they honour
    only the date range; pass ``kinds=("message",)`` to leave them out.
    """

    sources: tuple[str, ...] = ()
    workspace: str | None = None
    user_id: str | None = None
    since: float | None = None  # created_at >= since (unix seconds)
    until: float | None = None  # created_at < until
    roles: tuple[str, ...] = ()
    session_ids: tuple[str, ...] = ()  # only these sessions
    exclude_session_ids: tuple[str, ...] = ()
    # The live session: its messages still in the context are left out (the
    # model already sees them) but its compacted ones are searchable.
    exclude_live_of: str | None = None

    def is_empty(self) -> bool:
        return self == SearchFilters()


@dataclass(frozen=True)
class SearchHit:
    kind: Kind
    score: float
    id: int  # message id or chunk id
    # messages
    session_id: str | None = None
    seq: int | None = None
    role: str | None = None
    speaker: str | None = None
    created_at: float | None = None
    content: str | None = None
    source: str | None = None
    # a later message among the hits that says nearly the same (see fusion.supersede)
    superseded_by: int | None = None
    # chunks
    path: str | None = None
    line_start: int | None = None
    line_end: int | None = None
    text: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The set fields; a message also gets ``timestamp``, its ``created_at`` in ISO-8601 UTC."""
        out = {k: v for k, v in asdict(self).items() if v is not None}
        if self.created_at is not None:
            out["timestamp"] = datetime.fromtimestamp(self.created_at, UTC).isoformat()
        return out


@dataclass(frozen=True)
class SearchResult:
    query: str
    hits: list[SearchHit]
    mode: Literal["hybrid", "keyword"]
    notes: list[str] = field(default_factory=list)
    recall_id: int | None = None
    # The query's time words and what they did (``search.when``): intent
    # (recent / range / before / after), the range, the phrase, and whether
    # it shaped the ranking ("applied"); None when the query has none (or
    # when nothing at all was found: there was no ranking to shape).
    time: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "query": self.query,
            "mode": self.mode,
            "notes": list(self.notes),
            "hits": [h.to_dict() for h in self.hits],
        }
        if self.time is not None:
            out["time"] = dict(self.time)
        return out


@dataclass(frozen=True)
class IndexReport:
    fts_rows: int = 0
    messages_embedded: int = 0
    chunks_written: int = 0
    chunks_embedded: int = 0
    notes: list[str] = field(default_factory=list)
