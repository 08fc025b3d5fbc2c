"""The live transcript of one session, persisted the moment each message exists.

Every message is appended to the archive before the loop acts on it, so a
process killed mid-turn loses nothing that was complete, and ``--resume``
rebuilds the same conversation from the archive. The frozen system prompt is
kept in the session's metadata, not as a message: it would otherwise be
indexed and searched in every session.

Invariant: the view sent to the model never holds an assistant tool call
without its result. A turn cut short (Ctrl-C, a crash, a time budget) leaves
such calls behind; ``repair()`` answers each with a stored note before the
next request, because both wire formats reject a dangling call.

After a compaction the archive holds the summary as a stored message whose
meta (``"compaction"``) says where it stands in the view; ``resume`` puts it
there, so a resumed session sees exactly what the live one saw.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from kenning.archive.store import Archive, Message, Source
from kenning.models.types import ChatMessage, ToolCall, Usage

INTERRUPTED_RESULT = (
    "This tool call did not complete: the turn was interrupted before it returned. "
    "Its effects, if any, are unknown; check before relying on them or run it again."
)


# Meta key of a stored compaction summary; its "after" is the view position of
# the message it follows (the end of the kept head).
COMPACTION_KEY = "compaction"


class TranscriptError(ValueError):
    """The session cannot be resumed; the message says why and what to do."""


@dataclass(frozen=True)
class Entry:
    """One message of the live context with its position in the archive."""

    seq: int
    message: ChatMessage
    tokens: int | None = None  # from the API's usage when the model produced it
    meta: dict[str, Any] | None = None  # as stored (spill path, compaction summary, …)

    @property
    def position(self) -> tuple[int, int]:
        """Sort key of the view: (seq, seq), or a summary's (place it follows, seq)."""
        if self.meta and isinstance(self.meta.get(COMPACTION_KEY), dict):
            return int(self.meta[COMPACTION_KEY].get("after", 0)), self.seq
        return self.seq, self.seq


def to_archive(message: ChatMessage, *, usage: Usage | None = None, meta: Any = None) -> Message:
    return Message(
        role=message.role,
        content=message.content,
        tool_calls=[c.to_dict() for c in message.tool_calls] or None,
        tool_name=message.name if message.role == "tool" else None,
        tool_call_id=message.tool_call_id,
        input_tokens=usage.input_tokens if usage else None,
        output_tokens=usage.output_tokens if usage else None,
        meta=meta or None,
    )


def from_archive(message: Message) -> ChatMessage:
    calls = tuple(
        ToolCall(
            id=str(c.get("id", "")),
            name=str(c.get("name", "")),
            arguments=str(c.get("arguments", "{}")),
        )
        for c in message.tool_calls or ()
    )
    return ChatMessage(
        role=message.role,
        content=message.content,
        tool_calls=calls,
        tool_call_id=message.tool_call_id,
        name=message.tool_name,
    )


class Transcript:
    def __init__(
        self, archive: Archive, session_id: str, system_prompt: str, entries: list[Entry]
    ) -> None:
        self.archive = archive
        self.session_id = session_id
        self.system_prompt = system_prompt
        self.entries = entries

    @classmethod
    def start(
        cls,
        archive: Archive,
        *,
        source: Source,
        system_prompt: str,
        model: str | None = None,
        workspace: str | None = None,
        parent_id: str | None = None,
        title: str | None = None,
    ) -> Transcript:
        sid = archive.start_session(
            source,
            parent_id=parent_id,
            model=model,
            workspace=workspace,
            title=title,
            meta={"system_prompt": system_prompt},
        )
        return cls(archive, sid, system_prompt, [])

    @classmethod
    def resume(cls, archive: Archive, session_id: str) -> Transcript:
        """The session as it was: its frozen prompt and its active messages."""
        session = archive.session(session_id)
        if session is None:
            raise TranscriptError(
                f"no session {session_id!r} in the archive; `kenning sessions list` shows them"
            )
        prompt = session.meta.get("system_prompt")
        if not isinstance(prompt, str):
            raise TranscriptError(
                f"session {session_id} was not an agent session (source {session.source}); "
                "it can be searched and shown but not resumed"
            )
        stored = archive.messages(session_id, include_inactive=False)
        entries = [
            Entry(m.seq or 0, from_archive(m), m.output_tokens, m.meta)
            for m in stored
            if m.role != "system"
        ]
        entries.sort(key=lambda e: e.position)  # a summary stands where its messages were
        return cls(archive, session_id, prompt, entries)

    def append(
        self, message: ChatMessage, *, usage: Usage | None = None, meta: Any = None
    ) -> Entry:
        """Store ``message`` in the archive, then add it to the live context."""
        stored = self.archive.append(self.session_id, to_archive(message, usage=usage, meta=meta))
        if usage is not None:
            self.archive.add_usage(self.session_id, usage.input_tokens, usage.output_tokens)
        entry = Entry(stored.seq or 0, message, usage.output_tokens if usage else None, stored.meta)
        self.entries.append(entry)
        return entry

    def compacted(self, planned: int, kept: Sequence[Entry], system_prompt: str) -> None:
        """After a compaction: the first ``planned`` entries (what the compaction planned
        over) give way to ``kept``, entries appended meanwhile stay after them, and the
        rebuilt ``system_prompt`` replaces the frozen one."""
        self.entries = [*kept, *self.entries[planned:]]
        self.system_prompt = system_prompt

    def messages(self) -> list[ChatMessage]:
        """The conversation without the system prompt."""
        return [e.message for e in self.entries]

    def view(self) -> list[ChatMessage]:
        """What the model is sent: the frozen system prompt, then the conversation."""
        return [ChatMessage.system(self.system_prompt), *self.messages()]

    def dangling_calls(self) -> list[ToolCall]:
        """Tool calls of the conversation that have no result yet, in order."""
        answered = {e.message.tool_call_id for e in self.entries if e.message.role == "tool"}
        return [
            call
            for e in self.entries
            if e.message.role == "assistant"
            for call in e.message.tool_calls
            if call.id not in answered
        ]

    def repair(self) -> int:
        """Answer every dangling tool call with a stored 'interrupted' result."""
        missing = self.dangling_calls()
        for call in missing:
            self.append(
                ChatMessage.tool(call.id, call.name, INTERRUPTED_RESULT),
                meta={"interrupted": True},
            )
        return len(missing)

    def user_turns(self) -> int:
        return sum(1 for e in self.entries if e.message.role == "user")
