"""What every importer shares: parsed sessions as values, stable keys, atomic storage.

Invariants:

* Importers parse a whole source into ``ImportedSession`` values before anything
  is written. A damaged part that can be left out on its own (a transcript
  line, a conversation of an export, a file of a folder) is skipped and kept
  as a ``Problem`` naming the file and line, and everything else is imported;
  a source of which nothing can be read fails with ``ImportFormatError`` and
  leaves the archive untouched. Reading itself is ``sources``'s job.
* Each session is stored in one transaction: its row and all its messages, or
  nothing.
* A session's ``import_key`` is ``{format}:{sha256}:{n}``: the hash covers the
  format, the source's own ids and every message (never wall-clock times the
  importer made up), and ``n`` counts identical sessions earlier in the same
  source. Moving or renaming a file keeps the keys; re-importing adds nothing.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from kenning.archive.importers.sources import (
    ImportFormatError,
    Problem,
    fail,
    load_json,
    read_jsonl,
    read_text,
)
from kenning.archive.store import Archive, Message

# click's ProgressBar.update(n) fits; called with 1 after each session.
Progress = Callable[[int], object]

__all__ = [
    "ImportFormatError",
    "ImportReport",
    "ImportedSession",
    "ParsedImport",
    "Problem",
    "Progress",
    "load_json",
    "read_jsonl",
    "read_text",
    "store",
]


@dataclass
class ImportedSession:
    """One session as parsed, ready to store; ``origin`` is the source's own identity."""

    format: str
    origin: str
    started_at: float
    messages: list[Message]
    title: str | None = None
    workspace: str | None = None
    model: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)
    key: str = ""
    parent_origin: str | None = None  # a sub-agent's session: the origin of the one it ran in


@dataclass
class ParsedImport:
    """Everything read from one source.

    ``skipped`` counts what was left out on purpose (noise events, thinking),
    and why; ``problems`` lists each damaged part that was left out.
    """

    format: str
    paths: list[str]
    sessions: list[ImportedSession]
    skipped: Counter[str] = field(default_factory=Counter)
    problems: list[Problem] = field(default_factory=list)

    def require_something(self) -> ParsedImport:
        """Itself, unless it is all damage: then the first problem, as the error it is."""
        if self.sessions or not self.problems:
            return self
        first = self.problems[0]
        more = len(self.problems) - 1
        error = fail(first)
        if more:
            error = ImportFormatError(
                first.path, first.where, f"{first.problem} (and {more} more problems)"
            )
        raise error


@dataclass
class ImportReport:
    format: str
    paths: list[str]
    sessions_imported: int = 0
    sessions_skipped: int = 0  # already in the archive under the same import key
    messages_imported: int = 0
    skipped_events: dict[str, int] = field(default_factory=dict)
    session_ids: list[str] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)  # damaged parts, left out

    def to_dict(self) -> dict[str, Any]:
        data = dict(self.__dict__)
        data["problems"] = [p.to_dict() for p in self.problems]
        return data


def digest(session: ImportedSession) -> str:
    """A content hash of the session: format, origin and every message but its time."""
    h = hashlib.sha256()
    h.update(_canonical([session.format, session.origin]))
    for m in session.messages:
        # created_at is left out on purpose: importers without source times
        # (OpenAI chat files) stamp messages with the import time.
        h.update(
            _canonical(
                [m.role, m.speaker, m.content, m.tool_calls, m.tool_name, m.tool_call_id, m.meta]
            )
        )
    return h.hexdigest()


def assign_keys(sessions: list[ImportedSession]) -> None:
    seen: Counter[str] = Counter()
    for session in sessions:
        fingerprint = digest(session)
        session.key = f"{session.format}:{fingerprint}:{seen[fingerprint]}"
        seen[fingerprint] += 1


def store(
    archive: Archive, parsed: ParsedImport, *, progress: Progress | None = None
) -> ImportReport:
    """Store each parsed session unless its import key is already in the archive."""
    assign_keys(parsed.sessions)
    report = ImportReport(
        parsed.format,
        list(parsed.paths),
        skipped_events=dict(parsed.skipped),
        problems=list(parsed.problems),
    )
    for session in parsed.sessions:
        sid = _store_one(archive, session)
        if sid is None:
            report.sessions_skipped += 1
        else:
            report.sessions_imported += 1
            report.messages_imported += len(session.messages)
            report.session_ids.append(sid)
        if progress is not None:
            progress(1)
    return report


def _store_one(archive: Archive, session: ImportedSession) -> str | None:
    # One transaction for the session row and its messages (not start_session +
    # append_many, which would commit an empty session if a message failed).
    # The transaction takes the write lock before the key check, so two
    # concurrent imports of one file cannot both pass it.
    with archive.storage.transaction():
        if archive.session_by_import_key(session.key) is not None:
            sid = None
        else:
            sid = archive.start_session(
                "import",
                title=session.title,
                workspace=session.workspace,
                model=session.model,
                started_at=session.started_at,
                import_key=session.key,
                meta={"format": session.format, **session.meta},
            )
            for message in session.messages:
                archive.append(sid, message)
            tokens_in = sum(m.input_tokens or 0 for m in session.messages)
            tokens_out = sum(m.output_tokens or 0 for m in session.messages)
            if tokens_in or tokens_out:
                archive.add_usage(sid, tokens_in, tokens_out)
    return sid


# -- value helpers -----------------------------------------------------------


def to_timestamp(value: object) -> float | None:
    """Unix seconds from an ISO 8601 string or a number; naive times are UTC."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value) if math.isfinite(value) else None
    if isinstance(value, str) and value:
        try:
            parsed = datetime.fromisoformat(value)
        except ValueError:
            return None
        if parsed.tzinfo is None:
            parsed = parsed.replace(tzinfo=UTC)
        return parsed.timestamp()
    return None


def first_line(text: str, width: int = 80) -> str | None:
    """A title made from the start of a message, or None if it has no text."""
    line = " ".join(text.split())
    if not line:
        return None
    return line if len(line) <= width else line[: width - 1].rstrip() + "…"


def _canonical(value: object) -> bytes:
    return (
        json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        + b"\n"
    )
