"""The values the Python API returns: search hits and run results.

Plain frozen dataclasses, so they compare, print and serialise simply. They
are built from Kenning's internal values and never hand those out, so the
internals can change without changing these.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Literal, overload

if TYPE_CHECKING:
    from kenning.agent.events import EndReason
    from kenning.storage.query import SearchHit, SearchResult


@dataclass(frozen=True)
class Hit:
    """One search hit: a past message (``kind="message"``) or a memory-file passage.

    ``timestamp`` is when the message was said (aware, UTC); a memory-file
    passage has none, and no ``session_id`` either, but a ``path``.
    """

    text: str
    score: float
    kind: Literal["message", "chunk"]
    session_id: str | None = None
    timestamp: datetime | None = None
    role: str | None = None
    path: str | None = None
    # a later hit in the same result says nearly the same thing (newer wins)
    superseded: bool = False

    @classmethod
    def from_search(cls, hit: SearchHit) -> Hit:
        stamp = None
        if hit.created_at is not None:
            stamp = datetime.fromtimestamp(hit.created_at, UTC)
        return cls(
            text=(hit.content if hit.kind == "message" else hit.text) or "",
            score=hit.score,
            kind=hit.kind,
            session_id=hit.session_id,
            timestamp=stamp,
            role=hit.speaker or hit.role,
            path=hit.path,
            superseded=hit.superseded_by is not None,
        )


@dataclass(frozen=True)
class Hits:
    """The hits of one search, best first, with the engine's notes.

    Iterates, indexes and counts like a tuple of ``Hit``. ``notes`` say why a
    result may be thin (nothing close enough, keyword-only because the
    embedder failed …); ``mode`` is "hybrid" or "keyword".
    """

    query: str
    hits: tuple[Hit, ...]
    mode: Literal["hybrid", "keyword"]
    notes: tuple[str, ...] = field(default=())

    @classmethod
    def from_search(cls, result: SearchResult) -> Hits:
        return cls(
            result.query,
            tuple(Hit.from_search(h) for h in result.hits),
            result.mode,
            tuple(result.notes),
        )

    def __iter__(self) -> Iterator[Hit]:
        return iter(self.hits)

    def __len__(self) -> int:
        return len(self.hits)

    @overload
    def __getitem__(self, index: int) -> Hit: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[Hit, ...]: ...
    def __getitem__(self, index: int | slice) -> Hit | tuple[Hit, ...]:
        return self.hits[index]


@dataclass(frozen=True)
class RunResult:
    """How one ``Agent.run`` ended.

    ``ok`` is True when the model gave a final answer; otherwise ``reason``
    is "max_iterations", "timeout" or "error" and ``error`` says what
    happened and what to do (the turn is saved and can be continued with
    ``agent.run(..., session_id=result.session_id)``).
    """

    output: str
    session_id: str
    reason: EndReason
    iterations: int
    input_tokens: int
    output_tokens: int
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.reason == "final"
