"""Sessions and messages: the transcript of everything said and done.

``Archive`` is the domain façade over the storage's sessions
(``kenning.storage``): it assigns session ids, fills in times and makes the
multi-step changes (an import, a compaction) atomic; the storage holds the
rows. Messages are pure values until stored; the storage assigns ids and each
message's position (``seq``) in its session, atomically, so two processes
appending to the same session never collide. Compaction hides messages from
the live context by flags (``active``/``compacted``) and never deletes them:
they stay searchable.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from kenning import clock
from kenning.storage import Storage, StorageConflict, open_storage
from kenning.storage.base import StorageError
from kenning.storage.records import (
    SOURCES,
    Message,
    Role,
    Session,
    Source,
    new_session_id,
)

ArchiveError = StorageError  # the name callers know

__all__ = [
    "SOURCES",
    "Archive",
    "ArchiveError",
    "Message",
    "Role",
    "Session",
    "Source",
    "new_session_id",
]


class Archive:
    """The sessions and messages in one home's storage (``state.db``)."""

    def __init__(self, path: Path, *, storage: Storage | None = None) -> None:
        self.path = path
        self.storage = storage if storage is not None else open_storage(path)

    def close(self) -> None:
        self.storage.close()

    # -- sessions ----------------------------------------------------------

    def start_session(
        self,
        source: Source,
        *,
        session_id: str | None = None,
        parent_id: str | None = None,
        title: str | None = None,
        workspace: str | None = None,
        user_id: str | None = None,
        model: str | None = None,
        started_at: float | None = None,
        import_key: str | None = None,
        meta: dict[str, Any] | None = None,
    ) -> str:
        if source not in SOURCES:
            raise ArchiveError(f"unknown session source {source!r}; use one of {SOURCES}")
        started = started_at if started_at is not None else clock.timestamp()
        # Generated ids carry 24 random bits per second: enough for people,
        # not for an importer creating thousands of sessions a second, so a
        # clash with a generated id draws again (a caller's own id never does).
        for attempt in range(8):
            sid = session_id or new_session_id(started)
            try:
                self.storage.sessions.insert(
                    sid,
                    source,
                    started_at=started,
                    parent_id=parent_id,
                    title=title,
                    workspace=workspace,
                    user_id=user_id,
                    model=model,
                    import_key=import_key,
                    meta=meta,
                )
                return sid
            except StorageConflict:
                if session_id is not None or attempt == 7 or self.session(sid) is None:
                    raise
        raise AssertionError("unreachable")  # pragma: no cover

    def end_session(self, session_id: str, reason: str, *, ended_at: float | None = None) -> None:
        ended = ended_at if ended_at is not None else clock.timestamp()
        self.storage.sessions.end(session_id, reason, ended)

    def set_title(self, session_id: str, title: str) -> None:
        self.storage.sessions.set_title(session_id, title)

    def add_usage(self, session_id: str, input_tokens: int, output_tokens: int) -> None:
        self.storage.sessions.add_usage(session_id, input_tokens, output_tokens)

    def session(self, session_id: str) -> Session | None:
        return self.storage.sessions.get(session_id)

    def session_by_import_key(self, key: str) -> str | None:
        return self.storage.sessions.by_import_key(key)

    def sessions_by_host_id(self, host_id: str) -> list[str]:
        """Ids of the sessions imported or archived from a host session ``host_id``
        (a Claude Code session id, a ChatGPT conversation id), oldest first."""
        return self.storage.sessions.by_host_id(host_id)

    def sessions(
        self, *, limit: int = 20, sources: Sequence[str] | None = None, offset: int = 0
    ) -> list[Session]:
        return self.storage.sessions.recent(limit=limit, sources=sources, offset=offset)

    def children(self, session_id: str) -> list[Session]:
        """Sessions started from ``session_id``: its subagents and reviews, oldest first."""
        return self.storage.sessions.children(session_id)

    def root_session(self, session_id: str) -> str:
        """The first session of ``session_id``'s lineage (its parent's parent's …)."""
        seen = {session_id}
        current = session_id
        while True:
            parent = self.storage.sessions.parent(current)
            if parent is None or parent in seen:
                return current
            seen.add(parent)
            current = parent

    # -- messages ----------------------------------------------------------

    def append(self, session_id: str, message: Message) -> Message:
        """Store ``message`` at the end of the session; returns it with id and seq."""
        return self.storage.sessions.append(session_id, message)

    def append_many(self, session_id: str, messages: Iterable[Message]) -> int:
        """Append in one transaction (imports): all of them or none."""
        with self.storage.transaction():
            return len(self.storage.sessions.append_many(session_id, list(messages)))

    def messages(
        self,
        session_id: str,
        *,
        start_seq: int = 1,
        limit: int | None = None,
        include_inactive: bool = True,
    ) -> list[Message]:
        return self.storage.sessions.messages(
            session_id, start_seq=start_seq, limit=limit, include_inactive=include_inactive
        )

    def message(self, message_id: int) -> Message | None:
        return self.storage.sessions.message(message_id)

    def rewrite(self, message_id: int, message: Message) -> None:
        """Give a stored message what a re-import read for it (a harness line now a
        system row); its place and time stay, the search index follows."""
        self.storage.sessions.rewrite(message_id, message)

    def mark_compacted(self, session_id: str, seqs: Sequence[int]) -> int:
        """Hide messages from the live context; they stay in the archive and in search."""
        return self.storage.sessions.mark_compacted(session_id, seqs)

    # -- context engine ----------------------------------------------------

    def update_session_meta(self, session_id: str, updates: dict[str, Any]) -> None:
        """Merge ``updates`` into the session's meta (a compaction's new system prompt)."""
        with self.storage.transaction():
            self.storage.sessions.merge_meta(session_id, updates)

    def message_ids(self, session_id: str, seqs: Sequence[int]) -> dict[int, int]:
        """The archive id of each message at ``seqs`` (the ids ``session_search`` takes)."""
        return self.storage.sessions.message_ids(session_id, seqs)

    def append_inactive(self, session_id: str, messages: Sequence[Message]) -> list[Message]:
        """Append messages already flagged compacted: kept and searchable, never in context.

        For turns the user never sees (the pre-compaction flush); one transaction,
        so a crash cannot leave them half-visible.
        """
        stored: list[Message] = []
        with self.storage.transaction():
            for message in messages:
                stored.append(self.append(session_id, message))
            self.mark_compacted(session_id, [m.seq for m in stored if m.seq is not None])
        return [Message(**{**m.__dict__, "active": False, "compacted": True}) for m in stored]

    def replace_with_summary(
        self,
        session_id: str,
        summary: Message,
        seqs: Sequence[int],
        meta_updates: dict[str, Any] | None = None,
    ) -> Message:
        """One compaction, atomically: store ``summary``, flag ``seqs`` compacted, update meta.

        Either all of it is in the archive or none of it: a resumed session
        never sees a summary next to the messages it replaced.
        """
        with self.storage.transaction():
            stored = self.append(session_id, summary)
            ordered = list(seqs)
            for start in range(0, len(ordered), 500):  # bound parameters are capped
                self.mark_compacted(session_id, ordered[start : start + 500])
            if meta_updates:
                self.storage.sessions.merge_meta(session_id, meta_updates)
        return stored
