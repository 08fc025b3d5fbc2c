"""The storage interface: everything Kenning keeps in a database, as typed Protocols.

Sessions and messages, the full-text index, vectors, memory-file chunks,
recalls and the embedding cache are read and written only through these
methods; no module outside ``kenning.storage`` speaks SQL
(``tests/test_storage_boundary.py``). SQLite (``storage.sqlite``) is the
embedded default; a second backend implements the same Protocols and runs
the same contract tests (``tests/storage``).

Methods are named for what callers need, never a query passthrough. Ranking
stays in ``kenning.search``: the storage answers "which rows match these
terms, with what bm25", the engine decides what that is worth.

Errors: a backend raises ``StorageError`` (or a subclass), never its driver's
own exceptions, so callers can handle them without knowing the backend.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

import numpy as np

from kenning.embed.base import EmbeddingCache as EmbeddingCache  # defined where it is used

if TYPE_CHECKING:
    from kenning.embed.base import Embedder, Progress
    from kenning.storage.identity import IndexIdentity
    from kenning.storage.query import Kind, SearchFilters, SearchHit
    from kenning.storage.records import Chunk, Message, Session

Table = Literal["message", "chunk"]


class StorageError(RuntimeError):
    """The archive cannot be used; the message says why and what to do."""


class StorageConflict(StorageError):
    """A write clashed with what is stored (a session id or import key taken)."""


class StorageMissing(StorageError):
    """There is no archive there yet (a read-only open creates none)."""


class StorageUnavailable(StorageError):
    """The database cannot be read or written right now (locked, read-only, full)."""


class Sessions(Protocol):
    """Sessions and their messages: the transcript of everything said and done."""

    def insert(
        self,
        session_id: str,
        source: str,
        *,
        started_at: float,
        parent_id: str | None = None,
        title: str | None = None,
        workspace: str | None = None,
        user_id: str | None = None,
        model: str | None = None,
        import_key: str | None = None,
        meta: dict[str, Any] | None = None,
    ) -> None:
        """A new session; ``StorageConflict`` if the id or import key is taken."""

    def end(self, session_id: str, reason: str, ended_at: float) -> None: ...
    def set_title(self, session_id: str, title: str) -> None: ...
    def set_started_at(self, session_id: str, started_at: float) -> None: ...
    def add_usage(self, session_id: str, input_tokens: int, output_tokens: int) -> None: ...
    def get(self, session_id: str) -> Session | None: ...
    def import_key(self, session_id: str) -> str | None: ...
    def by_import_key(self, key: str) -> str | None: ...
    def by_host_id(self, host_id: str) -> list[str]:
        """The sessions another tool knows by ``host_id`` (its session or conversation
        id, kept in ``meta``), oldest first."""

    def parent(self, session_id: str) -> str | None: ...
    def children(self, session_id: str) -> list[Session]:
        """The sessions started from this one (subagents, reviews), oldest first."""
        ...

    def recent(
        self, *, limit: int = 20, sources: Sequence[str] | None = None, offset: int = 0
    ) -> list[Session]:
        """Newest first."""

    def merge_meta(self, session_id: str, updates: dict[str, Any]) -> None:
        """``updates`` merged into the session's meta; ``StorageError`` if no such session."""

    def append(self, session_id: str, message: Message) -> Message:
        """``message`` at the end of the session, returned with its id and seq; two
        writers appending to one session never take the same seq."""

    def append_many(self, session_id: str, messages: Sequence[Message]) -> list[Message]:
        """``append`` for each of ``messages`` in order (one statement where the backend
        can), returned with their ids and seqs."""

    def messages(
        self,
        session_id: str,
        *,
        start_seq: int = 1,
        limit: int | None = None,
        include_inactive: bool = True,
    ) -> list[Message]: ...

    def message(self, message_id: int) -> Message | None: ...
    def rewrite(self, message_id: int, message: Message) -> None:
        """The stored message ``message_id`` takes ``message``'s role, speaker, content,
        tool fields and meta (its id, seq, session and time stay); the index
        triggers re-index it, or drop it when it became a system row."""

    def mark_compacted(self, session_id: str, seqs: Sequence[int]) -> int: ...
    def message_ids(self, session_id: str, seqs: Sequence[int]) -> dict[int, int]: ...
    def all_messages(self) -> list[Message]: ...
    def count_messages(self, *, include_system: bool = True) -> int: ...
    def ids_in(self, scope: SearchFilters) -> list[int]: ...
    def by_meta_key(self, key: str) -> list[tuple[str, int, str]]: ...
    def newest_message_at(self) -> float | None: ...
    def journal_flushes(self, since: float, until: float) -> list[tuple[str | None, str]]: ...

    def facts(
        self, ids: list[Any], scope: SearchFilters, *, pairs: bool = False
    ) -> list[tuple[Any, ...]]:
        """(id, session, created_at, source, seq, speaker) of non-system messages in ``scope``."""

    def facts_at(self, pairs: list[list[Any]]) -> list[tuple[Any, ...]]: ...
    def facts_after(self, last_id: int) -> list[tuple[Any, ...]]: ...
    def sources(self, session_ids: list[str]) -> list[tuple[str, str]]: ...
    def with_source(self, ids: list[int]) -> list[tuple[Message, str]]: ...
    def said_since(self, sources: list[str], since: float) -> list[Message]: ...

    def tool_calls_since(
        self, names: list[str], excluding: list[str], since: float
    ) -> list[tuple[str | None, float]]: ...


class TextIndex(Protocol):
    """The full-text index over messages and memory chunks (stems, CJK bigrams)."""

    def pending(self) -> int:
        """Messages not indexed yet."""

    def sync(self, *, batch: int = 2000) -> int:
        """Index every pending message; returns how many."""

    def reset(self) -> None: ...

    def fingerprint(self) -> bytes | None:
        """Changes whenever the message index changes (None: unknown)."""

    def doc_count(self, table: Table = "message") -> int: ...
    def stems(self, terms: Iterable[str]) -> list[str]: ...

    def term_doc_counts(
        self, table: Table, terms: list[str], known: dict[str, int] | None = None
    ) -> list[int]:
        """Documents holding each term; ``known`` caches token -> count."""

    def match_messages(
        self, terms: list[str], scope: SearchFilters, limit: int
    ) -> list[tuple[int, float]]:
        """(message id, -bm25) best first for the OR of ``terms``, inside ``scope``."""

    def match_chunks(
        self, terms: list[str], scope: SearchFilters, limit: int
    ) -> list[tuple[int, float]]: ...

    def pending_matches(
        self, terms: list[str], scope: SearchFilters, limit: int
    ) -> dict[int, list[int]]:
        """For the newest ``limit`` messages in ``scope`` still queued for the index:
        which of ``terms`` (their positions) each holds, read through the index's
        own tokenizer without writing the index (a search that cannot sync it)."""

    def match_plain(self, match: str, limit: int) -> list[int]:
        """Message ids for a raw FTS5 expression by plain bm25 (a benchmark baseline)."""

    def containing(self, table: Table, term: str, ids: Sequence[int]) -> list[int]:
        """Which of ``ids`` hold ``term``."""

    def containing_each(
        self, table: Table, terms: Sequence[str], ids: Sequence[int]
    ) -> list[list[int]]:
        """``containing`` for each of ``terms`` (in order), asked at once."""

    def hits(self, scored: list[tuple[float, Kind, int]]) -> list[SearchHit]:
        """Ranked (score, kind, id) as hits with their stored text, in order."""

    def message_texts(self, ids: list[int]) -> dict[int, str]: ...


class Vectors(Protocol):
    """One float32 vector per message and per chunk, of one embedder identity."""

    def stored_identity(self) -> IndexIdentity | None: ...

    def check_identity(self, embedder: Embedder) -> str | None:
        """None when ``embedder`` may use the stored vectors, else why not."""

    def claim_identity(self, embedder: Embedder) -> None: ...

    def reset(self, embedder: Embedder | None) -> None:
        """Forget every vector; every message is embedded again."""

    def pending(self) -> int: ...
    def pending_chunks(self) -> int: ...

    def embed_pending(
        self,
        embedder: Embedder,
        *,
        limit: int | None = None,
        batch: int = 64,
        progress: Progress | None = None,
    ) -> int: ...

    def queued(self) -> list[int]: ...
    def pending_passages(self) -> list[str]: ...
    def embed_chunks(
        self, embedder: Embedder, *, limit: int | None = None, batch: int = 32
    ) -> int: ...
    def put_messages(self, vectors: list[tuple[int, np.ndarray]]) -> None: ...

    def deletions(self, kind: Table) -> str | None:
        """A marker that changes whenever a vector of ``kind`` is deleted."""

    def since(self, kind: Table, after: int) -> list[tuple[int, int, bytes]]:
        """(load order, item id, float32 blob) of vectors stored after ``after``."""

    def nearest(self, kind: Table, query: np.ndarray, k: int) -> list[tuple[int, float]]:
        """(item id, cosine) of the ``k`` nearest stored vectors, best first."""

    def indexed_nearest(
        self, query: np.ndarray, k: int, scope: SearchFilters
    ) -> list[tuple[int, float]] | None:
        """(message id, cosine) of about the ``k`` message vectors nearest ``query``
        inside ``scope``, from a nearest-neighbour index the database keeps
        (approximate), best first; None when this backend keeps none, and the
        engine runs its own prefilter (``search.ann``) over its matrix."""

    def bulk_load(self) -> AbstractContextManager[None]:
        """A block storing many vectors at once: a backend whose index is cheaper
        built once than kept up row by row drops it on entry and builds it on exit."""


class Chunks(Protocol):
    """Memory-file chunks: what ``search.chunks`` cut from MEMORY.md, the journal, …"""

    def recipe(self) -> str | None: ...
    def set_recipe(self, recipe: str) -> None: ...
    def files(self) -> dict[str, tuple[int, int, str]]: ...
    def remove_file(self, path: str) -> None: ...
    def touch_file(self, path: str, size: int, mtime_ns: int) -> None: ...

    def replace_file(
        self,
        path: str,
        *,
        size: int,
        mtime_ns: int,
        digest: str,
        decays: bool,
        dated_at: float,
        chunks: Iterable[Chunk],
    ) -> int: ...

    def ids_in(self, scope: SearchFilters) -> set[int]: ...
    def dating(self, ids: list[int]) -> list[tuple[int, bool, float]]: ...
    def lines(self, ids: list[int]) -> list[tuple[int, str, int, int]]: ...


class Recalls(Protocol):
    """What each search returned: the signal dreaming promotes memories by."""

    def record(
        self, query: str, hits: list[SearchHit], mode: str, scope: SearchFilters, at: float
    ) -> int: ...

    def hits_since(self, since: float) -> list[tuple[int, str, float, str, int, int]]: ...


class Storage(Protocol):
    """One home's database."""

    path: Path
    sessions: Sessions
    index: TextIndex
    vectors: Vectors
    chunks: Chunks
    recalls: Recalls
    embedding_cache: EmbeddingCache

    def transaction(self) -> AbstractContextManager[None]:
        """One atomic write: everything inside commits together or not at all
        (nested uses join the outer one); takes the write lock at the start."""

    def checkpoint(self) -> None:
        """Make the stored files hold everything written (a no-op where that is always so)."""

    def settle(self) -> bool:
        """End of a unit of reads: release what was held; False if what was read
        may be torn (read again)."""

    def close(self) -> None: ...
