"""Who may change a skill: the rules for automated writers (the background review).

A person, or the agent acting in the conversation, may change any skill. An
*automated* writer, which runs with nobody watching, is held to two rules,
checked under the library's lock against what is on disk at that moment:

1. It may change only skills the agent created: never pinned, user-written or
   bundled ones, and never an agent skill a person has since changed (through
   Kenning or by hand — a hash that differs from Kenning's last write means a
   hand edit).
2. It must have read the current text in the same session: every ``skill_view``
   records (session, skill, file) -> content hash in a :class:`ReadLog`, and a
   write needs a read of SKILL.md at its current hash, plus a read of the
   support file itself when it overwrites or removes one. A skill changed since
   it was read must be read again. (Hermes' review could not read the skills it
   patched, so its patches failed; ours must read first, and can.)

The read log lives in memory, per library: tools built on the same library
share it; another process has read nothing (fail closed).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from kenning.skills.errors import ErrorKind, SkillError
from kenning.skills.files import file_hash
from kenning.skills.model import SKILL_FILE
from kenning.skills.state import SkillRecord

_MAX_SESSIONS = 256  # a long-running process forgets the oldest sessions' reads


@dataclass(frozen=True)
class Writer:
    """Who is making a change: recorded as provenance, and checked when automated."""

    author: Literal["user", "agent"]
    session_id: str | None = None
    automated: bool = False

    def describe(self) -> str:
        who = "background review" if self.automated else self.author
        return f"{who} (session {self.session_id})" if self.session_id else who


USER = Writer("user")


class ReadLog:
    """What each session has read: (skill, file) -> content hash, thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._sessions: OrderedDict[str, dict[tuple[str, str], str]] = OrderedDict()

    def note(self, session_id: str, name: str, file: str, data: bytes) -> None:
        with self._lock:
            reads = self._sessions.setdefault(session_id, {})
            self._sessions.move_to_end(session_id)
            reads[(name, file)] = file_hash(data)
            while len(self._sessions) > _MAX_SESSIONS:
                self._sessions.popitem(last=False)

    def has_read(self, session_id: str, name: str, file: str, data: bytes) -> bool:
        with self._lock:
            seen = self._sessions.get(session_id, {}).get((name, file))
        return seen is not None and seen == file_hash(data)

    def forget(self, session_id: str) -> None:
        with self._lock:
            self._sessions.pop(session_id, None)


def protection(record: SkillRecord, current_hash: str) -> str | None:
    """Why automation must leave this skill alone, or None when it may change it."""
    if record.created_by == "bundled":
        return "it is a bundled skill that ships with Kenning"
    if record.created_by != "agent":
        return "it was written by the user"
    if record.pinned:
        return "it is pinned"
    if record.user_modified:
        return "a person has changed it since the agent wrote it"
    if record.hash and record.hash != current_hash:
        return "it was edited by hand since Kenning last wrote it"
    return None


def check(
    writer: Writer,
    name: str,
    record: SkillRecord | None,
    current: Mapping[str, bytes],
    current_hash: str,
    touched: set[str],
    reads: ReadLog,
) -> None:
    """Raise SkillError if automated ``writer`` may not make a change touching ``touched``.

    ``record`` is None for a skill that does not exist yet (creating is allowed).
    """
    if not writer.automated or record is None:
        return
    why = protection(record, current_hash)
    if why is not None:
        raise SkillError(
            ErrorKind.PROTECTED,
            f"Skill '{name}' cannot be changed by an automated review: {why}.",
            "Leave it as it is. If it needs a change, mention it in your summary for the user; "
            "do not retry.",
        )
    session = writer.session_id
    needed = [SKILL_FILE, *sorted(f for f in touched if f != SKILL_FILE and f in current)]
    unread = [
        f
        for f in needed
        if session is None or f not in current or not reads.has_read(session, name, f, current[f])
    ]
    if unread:
        files = ", ".join(unread)
        calls = "; ".join(
            f"skill_view(name='{name}')"
            if f == SKILL_FILE
            else f"skill_view(name='{name}', file='{f}')"
            for f in unread
        )
        raise SkillError(
            ErrorKind.NOT_READ,
            f"Read skill '{name}' before changing it: its current {files} has not been "
            "read in this session (or changed since it was read).",
            f"Call {calls}, then retry the change against the text you read.",
        )
