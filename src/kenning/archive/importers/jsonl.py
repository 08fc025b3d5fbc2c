"""Kenning's own JSON Lines format: any history, one message per line.

    {"session_id": "s1", "role": "user", "content": "…", "timestamp": "2024-05-01T09:30:00Z",
     "session_title": "optional", "meta": {"optional": "object"}}

The file's ``session_id`` becomes the archive session's id, so a search hit
names the session the way the source did. Each line's ``timestamp`` is the
message's ``created_at`` (a time without an offset is UTC, as in the other
importers) and a session starts at its earliest message. Messages keep the
order of the file.

Re-importing is idempotent, and appending to a file works the way one
expects: within a session a message is identified by its role, content,
timestamp and meta (and by how many identical ones come before it), so lines
already in the archive are skipped and only new ones are appended, even when
the file was reordered or another file carries more of the same session. An
edited line counts as a new message; the old one stays (nothing is lost).

Damaged lines (bad JSON, a missing or mistyped field, an unknown role, a
timestamp that is not ISO-8601) are skipped and reported as ``file:line:
reason``; every other line is imported. A session id already used by a
session that did not come from this format is never appended to.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from kenning.archive.importers.common import (
    ImportedSession,
    ImportFormatError,
    ImportReport,
    ParsedImport,
    Problem,
    Progress,
    first_line,
)
from kenning.archive.store import Archive, Message, Role

FORMAT = "jsonl"
ROLES: tuple[Role, ...] = ("user", "assistant", "system", "tool")
FIELDS = ("session_id", "role", "content", "timestamp", "session_title", "meta")
MAX_SESSION_ID = 200
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


@dataclass
class JsonlImport(ParsedImport):
    """Sessions in first-appearance order (``origin`` = the file's session id)."""

    lines: dict[str, list[int]] = field(default_factory=dict)  # session id -> its line numbers
    titled: set[str] = field(default_factory=set)  # sessions whose lines give a session_title


@dataclass
class JsonlReport(ImportReport):
    sessions_appended: int = 0  # already in the archive, got new messages
    messages_appended: int = 0  # of messages_imported, those added to existing sessions
    messages_already_there: int = 0

    def describe(self) -> list[str]:
        """The human summary, one line per fact (the CLI lists ``problems`` after it)."""
        lines = [
            f"Imported {_plural(self.sessions_imported, 'new session')} "
            f"({_plural(self.messages_imported - self.messages_appended, 'message')}); "
            f"appended {_plural(self.messages_appended, 'message')} to "
            f"{_plural(self.sessions_appended, 'session')} already in the archive; "
            f"already there: {_plural(self.messages_already_there, 'message')}."
        ]
        if self.skipped_events:
            left_out = ", ".join(f"{n} × {what}" for what, n in sorted(self.skipped_events.items()))
            lines.append(f"Left out: {left_out}.")
        return lines


def parse_jsonl(path: Path | str) -> JsonlImport:
    """Every valid line of ``path``, grouped by session; damaged lines are listed, not fatal.

    Raises ``ImportFormatError`` only when nothing at all can be imported: the
    file cannot be read, is empty, or has no valid line.
    """
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ImportFormatError(path, "", f"cannot read: {exc.strerror or exc}") from exc
    raw = raw.removeprefix(b"\xef\xbb\xbf")
    parsed = JsonlImport(FORMAT, [str(path)], [])
    by_id: dict[str, ImportedSession] = {}
    titles: dict[str, str] = {}
    seen_lines = 0
    for number, line in enumerate(raw.split(b"\n"), 1):
        if not line.strip():
            continue
        seen_lines += 1
        try:
            sid, message, title, unknown = _read_line(line)
        except _Damaged as exc:
            parsed.problems.append(Problem(str(path), f"line {number}", str(exc)))
            continue
        for name in unknown:
            parsed.skipped[f"unknown field '{name}' (ignored)"] += 1
        if title:
            titles[sid] = title  # the last title given for a session wins
        session = by_id.get(sid)
        if session is None:
            session = by_id[sid] = ImportedSession(FORMAT, sid, message.created_at or 0.0, [])
            session.key = f"{FORMAT}:{sid}"
            parsed.sessions.append(session)
            parsed.lines[sid] = []
        session.messages.append(message)
        session.started_at = min(session.started_at, message.created_at or 0.0)
        parsed.lines[sid].append(number)
    if not seen_lines:
        raise ImportFormatError(path, "", "the file has no lines (expected a JSON message a line)")
    if not parsed.sessions:
        first = parsed.problems[0]
        raise ImportFormatError(path, first.where, f"no line is a valid message ({first.problem})")
    for session in parsed.sessions:
        session.title = titles.get(session.origin) or _derived_title(session.messages)
    parsed.titled = set(titles)
    return parsed


def store_jsonl(
    archive: Archive, parsed: ParsedImport, *, progress: Progress | None = None
) -> JsonlReport:
    """Create new sessions, append new lines to existing ones; one transaction per session."""
    report = JsonlReport(parsed.format, list(parsed.paths), skipped_events=dict(parsed.skipped))
    report.problems = list(parsed.problems)
    for session in parsed.sessions:
        _store_session(archive, session, report, parsed)
        if progress is not None:
            progress(1)
    return report


def import_jsonl(
    archive: Archive, path: Path | str, *, progress: Progress | None = None
) -> JsonlReport:
    return store_jsonl(archive, parse_jsonl(path), progress=progress)


def message_key(message: Message) -> tuple[str, str, float, str | None]:
    """What identifies a message within its session: role, content, time and meta.

    Computed the same way from a parsed line and from the stored message
    (created_at and meta survive the round trip exactly; ``{}`` is stored as
    no meta at all).
    """
    meta = json.dumps(message.meta, sort_keys=True, ensure_ascii=False) if message.meta else None
    return (message.role, message.content, float(message.created_at or 0.0), meta)


def _store_session(
    archive: Archive, session: ImportedSession, report: JsonlReport, parsed: ParsedImport
) -> None:
    sid = session.origin
    # The transaction takes the write lock before reading what is there, so
    # two concurrent imports of one file cannot both append the same lines.
    with archive.storage.transaction():
        row = archive.session(sid)
        if row is None:
            archive.start_session(
                "import",
                session_id=sid,
                title=session.title,
                started_at=session.started_at,
                import_key=session.key,
                meta={"format": FORMAT},
            )
            new = session.messages
            report.sessions_imported += 1
            report.session_ids.append(sid)
        elif archive.storage.sessions.import_key(sid) != session.key:
            lines = parsed.lines.get(sid, []) if isinstance(parsed, JsonlImport) else []
            report.problems.append(
                Problem(
                    parsed.paths[0],
                    f"line {lines[0]}" if lines else "",
                    f"session id {sid!r} already belongs to a {row.source} session that was not "
                    f"imported from this format; its {_plural(len(session.messages), 'line')} "
                    "were not imported (give them another session_id)",
                )
            )
            return  # nothing was written
        else:
            have = Counter(message_key(m) for m in archive.messages(sid))
            new = []
            for message in session.messages:
                key = message_key(message)
                if have[key] > 0:
                    have[key] -= 1
                else:
                    new.append(message)
            report.messages_already_there += len(session.messages) - len(new)
            if new:
                report.sessions_appended += 1
                report.messages_appended += len(new)
                report.session_ids.append(sid)
                if session.started_at < row.started_at:
                    archive.storage.sessions.set_started_at(sid, session.started_at)
            else:
                report.sessions_skipped += 1
            titled = isinstance(parsed, JsonlImport) and sid in parsed.titled
            if titled and session.title != row.title:
                archive.set_title(sid, session.title or "")
        for message in new:
            archive.append(sid, message)
        report.messages_imported += len(new)


# -- one line -----------------------------------------------------------------


class _Damaged(ValueError):
    """Why one line cannot be imported."""


def _read_line(line: bytes) -> tuple[str, Message, str | None, list[str]]:
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _Damaged(f"not UTF-8 text (byte {exc.start})") from exc
    try:
        item = json.loads(text)
    except json.JSONDecodeError as exc:
        raise _Damaged(f"invalid JSON at column {exc.colno} ({exc.msg})") from exc
    if not isinstance(item, dict):
        raise _Damaged(f"expected a JSON object, got {_type(item)}")
    sid = item.get("session_id")
    if not isinstance(sid, str) or not sid.strip():
        raise _Damaged(_wrong("session_id", "a non-empty string", item))
    if len(sid) > MAX_SESSION_ID or _CONTROL.search(sid):
        raise _Damaged(f"'session_id' must be at most {MAX_SESSION_ID} printable characters")
    role = item.get("role")
    if role not in ROLES:
        raise _Damaged(_wrong("role", "one of " + ", ".join(ROLES), item))
    content = item.get("content")
    if not isinstance(content, str):
        raise _Damaged(_wrong("content", "a string", item))
    created = _timestamp(item)
    title = item.get("session_title")
    if title is not None and not isinstance(title, str):
        raise _Damaged(_wrong("session_title", "a string", item))
    meta = item.get("meta")
    if meta is not None and not isinstance(meta, dict):
        raise _Damaged(_wrong("meta", "an object", item))
    unknown = [name for name in item if name not in FIELDS]
    message = Message(role=role, content=content, created_at=created, meta=meta or None)
    return sid, message, title.strip() if title else None, unknown


def _timestamp(item: dict[str, Any]) -> float:
    value = item.get("timestamp")
    expected = "an ISO-8601 string like 2024-05-01T09:30:00Z"
    if not isinstance(value, str):
        raise _Damaged(_wrong("timestamp", expected, item))
    try:
        parsed = datetime.fromisoformat(value.strip())
    except ValueError:
        raise _Damaged(f"'timestamp' must be {expected} (got {_short(value)})") from None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed.timestamp()


def _wrong(name: str, expected: str, item: dict[str, Any]) -> str:
    if name not in item:
        return f"'{name}' is missing (it must be {expected})"
    return f"'{name}' must be {expected} (got {_short(item[name])})"


def _short(value: object) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 40 else text[:39] + "…"


def _type(value: object) -> str:
    return {list: "a list", str: "a string", bool: "a boolean", type(None): "null"}.get(
        type(value), "a number"
    )


def _derived_title(messages: list[Message]) -> str | None:
    first_user = next((m for m in messages if m.role == "user" and m.content.strip()), None)
    return first_line(first_user.content) if first_user is not None else None


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"
