"""Storing sessions a host names itself: keyed by the host's session id, messages by their uuid.

A Claude Code transcript says who it is (``sessionId``) and names every line
(``uuid``). Keying the archive session by that id, not by a hash of its
content, is what keeps a re-import from duplicating it when Kenning reads the
same lines differently (harness lines were once user rows and are now system
rows) or when the session grew since the last import.

Invariants:

* A session's import key is ``{format}:session:{origin}``. A session already
  in the archive under that key, or imported before host keys existed (a
  content-hash key, found by the host id in its meta), is updated in place:
  a stored message whose uuid (and place among the messages of that line)
  matches a parsed one takes the parsed role, content and meta; parsed
  messages not stored yet are appended. Nothing is ever deleted.
* A session the host's hooks archive live (``{format}:live:{id}``, or an
  imported one they took over) belongs to them (they track their own read
  offset in its meta); an import leaves it alone and counts it as skipped.
* A child (a sub-agent's sidechain, ``parent_origin``) is stored after its
  parent and linked to it (``parent_id``).
* Each session is written in one transaction, its read included, so two
  concurrent imports of one file cannot both append the same lines.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace

from kenning.archive.importers.common import ImportedSession, ParsedImport, Progress
from kenning.archive.importers.jsonl import JsonlReport, _plural
from kenning.archive.store import Archive, Message

LIVE_SKIP = "session archived live by kenning hosts"


@dataclass
class HostReport(JsonlReport):
    """Session counts are of the host's sessions; their sub-agents' are counted apart."""

    messages_updated: int = 0  # stored rows re-read in place (a harness line re-typed)
    subagent_sessions: int = 0  # children stored or updated (their messages are counted)
    subagent_ids: list[str] = field(default_factory=list)

    def describe(self) -> list[str]:
        lines = [
            f"Imported {_plural(self.sessions_imported, 'session')} "
            f"({_plural(self.messages_imported - self.messages_appended, 'message')}); "
            f"skipped {self.sessions_skipped} already in the archive."
        ]
        if self.messages_appended:
            lines.append(
                f"Appended {_plural(self.messages_appended, 'new message')} to "
                f"{_plural(self.sessions_appended, 'session')} already in the archive."
            )
        if self.messages_updated:
            lines.append(f"Updated {_plural(self.messages_updated, 'stored message')} in place.")
        if self.subagent_sessions:
            lines.append(
                f"Sub-agents: {_plural(self.subagent_sessions, 'session')} linked to their "
                "parent (kenning sessions show PARENT lists them)."
            )
        if self.skipped_events:
            left_out = ", ".join(f"{n} × {what}" for what, n in sorted(self.skipped_events.items()))
            lines.append(f"Left out: {left_out}.")
        return lines


def session_key(fmt: str, origin: str) -> str:
    return f"{fmt}:session:{origin}"


def is_live(archive: Archive, sid: str, fmt: str) -> bool:
    """Whether the host's hooks keep this session (they store their read offset in it)."""
    if (archive.storage.sessions.import_key(sid) or "").startswith(f"{fmt}:live:"):
        return True
    row = archive.session(sid)
    return row is not None and "offset" in (row.meta or {})


def store_host_keyed(
    archive: Archive, parsed: ParsedImport, *, progress: Progress | None = None
) -> HostReport:
    report = HostReport(
        parsed.format,
        list(parsed.paths),
        skipped_events=dict(parsed.skipped),
        problems=list(parsed.problems),
    )
    archived: dict[str, str] = {}  # origin -> archive session id, for the children
    # Parents first: a child's row names its parent's id.
    for session in sorted(parsed.sessions, key=lambda s: s.parent_origin is not None):
        session.key = session_key(session.format, session.origin)
        parent = None
        if session.parent_origin is not None:  # imported now, or by an earlier import
            parent = archived.get(session.parent_origin) or _existing(
                archive, replace(session, origin=session.parent_origin, parent_origin=None)
            )
        sid = _store_one(archive, session, parent, report)
        if sid is not None:
            archived[session.origin] = sid
        if progress is not None:
            progress(1)
    return report


def _existing(archive: Archive, session: ImportedSession) -> str | None:
    """The archive session this one already is, if any (see the module doc)."""
    sid = archive.session_by_import_key(session_key(session.format, session.origin))
    if sid is not None or session.parent_origin is not None:
        return sid
    # Imported before sessions were keyed by host id: its key is a content
    # hash, its meta names the host session. The newest such copy is updated.
    earlier = []
    for candidate in archive.sessions_by_host_id(session.origin):
        row = archive.session(candidate)
        if row is not None and (row.meta or {}).get("format") == session.format:
            if is_live(archive, candidate, session.format):
                return candidate
            earlier.append(candidate)
    return earlier[-1] if earlier else None


def _store_one(
    archive: Archive, session: ImportedSession, parent: str | None, report: HostReport
) -> str | None:
    if session.parent_origin is None:
        return _store_session(archive, session, parent, report)
    # A sub-agent: its messages count, its session is counted apart.
    counts = HostReport(report.format, [])
    sid = _store_session(archive, session, parent, counts)
    if sid is not None and (counts.sessions_imported or counts.session_ids):
        report.subagent_sessions += 1
        report.subagent_ids.append(sid)
    report.messages_imported += counts.messages_imported
    report.messages_appended += counts.messages_appended
    report.sessions_appended += counts.sessions_appended
    report.messages_updated += counts.messages_updated
    report.messages_already_there += counts.messages_already_there
    return sid


def _store_session(
    archive: Archive, session: ImportedSession, parent: str | None, report: HostReport
) -> str | None:
    with archive.storage.transaction():
        sid = _existing(archive, session)
        if sid is None:
            sid = archive.start_session(
                "import",
                parent_id=parent,
                title=session.title,
                workspace=session.workspace,
                model=session.model,
                started_at=session.started_at,
                import_key=session.key,
                meta={"format": session.format, **session.meta},
            )
            new = session.messages
            report.sessions_imported += 1
            report.session_ids.append(sid)
        elif is_live(archive, sid, session.format):
            report.sessions_skipped += 1
            report.skipped_events[LIVE_SKIP] = report.skipped_events.get(LIVE_SKIP, 0) + 1
            return sid
        else:
            new, updated = reconcile(archive, sid, session.messages)
            report.messages_updated += updated
            report.messages_already_there += len(session.messages) - len(new)
            if new:
                report.sessions_appended += 1
                report.messages_appended += len(new)
            if new or updated:
                report.session_ids.append(sid)
            else:
                report.sessions_skipped += 1
        for message in new:
            archive.append(sid, message)
        report.messages_imported += len(new)
        tokens_in = sum(m.input_tokens or 0 for m in new)
        tokens_out = sum(m.output_tokens or 0 for m in new)
        if tokens_in or tokens_out:
            archive.add_usage(sid, tokens_in, tokens_out)
    return sid


def line_keys(messages: list[Message]) -> list[tuple[str | None, int]]:
    """Each message's identity: the host line it came from and its place among
    that line's messages (one line may hold a text and several tool results)."""
    seen: Counter[str | None] = Counter()
    keys = []
    for m in messages:
        uuid = (m.meta or {}).get("uuid")
        line = uuid if isinstance(uuid, str) else None
        keys.append((line, seen[line]))
        seen[line] += 1
    return keys


def reconcile(archive: Archive, sid: str, parsed: list[Message]) -> tuple[list[Message], int]:
    """Re-type stored messages in place; the parsed messages not stored yet come back."""
    stored = archive.messages(sid)
    by_key = {k: m for k, m in zip(line_keys(stored), stored, strict=True) if k[0] is not None}
    new: list[Message] = []
    updated = 0
    for key, message in zip(line_keys(parsed), parsed, strict=True):
        old = by_key.get(key)
        if old is None:
            if key[0] is None and _same_row(stored, message):
                continue  # a line without a uuid, already stored as it is
            new.append(message)
        elif _fields(old) != _fields(message):
            assert old.id is not None
            archive.rewrite(old.id, message)
            updated += 1
    return new, updated


def _fields(m: Message) -> tuple[object, ...]:
    return (m.role, m.speaker, m.content, m.tool_calls, m.tool_name, m.tool_call_id, m.meta or {})


def _same_row(stored: list[Message], message: Message) -> bool:
    return any(_fields(m) == _fields(message) for m in stored)
