"""Typed facades over one home's memory, journal, skills and sessions.

Each method calls the function the matching ``kenning …`` command calls, so
the same rules hold from Python: the threat scan, the budgets, the locks,
atomic writes and a commit in the home's history for every change. Errors
are the ones the CLI reports (``MemoryWriteError``, ``JournalError``,
``SkillError``); their message says what happened and what to do next.

A facade asks its ``Home`` for the runtime on every call, so using one after
``Home.close()`` raises ``HomeClosedError`` instead of reopening the database.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Sequence
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING

from kenning.api.errors import SessionNotFoundError
from kenning.archive.store import Message, Session
from kenning.journal import JournalAppend
from kenning.memory.store import MemoryState, Target, WriteResult

if TYPE_CHECKING:  # the skills package loads YAML: imported on first use, not by `import kenning`
    from kenning.archive.importers import ImportReport
    from kenning.home import Home as Runtime
    from kenning.skills.catalog import SkillInfo
    from kenning.skills.library import ChangeResult, SkillLibrary, SkillView

Opened = Callable[[], "Runtime"]  # the open runtime home, or HomeClosedError


class Memory:
    """Hot memory: MEMORY.md (the agent's notes) and USER.md (about the user).

    ``target`` picks the file: ``Target.MEMORY`` (default) or ``Target.USER``
    (or the strings "memory" / "user").
    """

    def __init__(self, opened: Opened) -> None:
        self._opened = opened

    def add(
        self,
        text: str,
        *,
        target: Target | str = Target.MEMORY,
        keep_both: bool = False,
        reason: str = "python: memory.add",
    ) -> WriteResult:
        """Add ``text`` as a new entry, like ``kenning memory add``.

        An exact duplicate is not added twice (``result.changed`` is False);
        an entry that restates an existing one with another value is added and
        named in ``result.restated`` (``keep_both=True`` skips that check).
        Raises ``MemoryWriteError`` (``.kind``: blocked, over_budget, invalid …)
        with nothing written.
        """
        return self._opened().memory.add(Target(target), text, reason=reason, keep_both=keep_both)

    def replace(
        self,
        old: str,
        new: str,
        *,
        target: Target | str = Target.MEMORY,
        reason: str = "python: memory.replace",
    ) -> WriteResult:
        """Replace the one entry containing ``old`` with ``new`` (the whole new entry)."""
        return self._opened().memory.replace(Target(target), old, new, reason=reason)

    def remove(
        self,
        old: str,
        *,
        target: Target | str = Target.MEMORY,
        reason: str = "python: memory.remove",
    ) -> WriteResult:
        """Remove the one entry containing ``old`` (no match, or several: ``MemoryWriteError``)."""
        return self._opened().memory.remove(Target(target), old, reason=reason)

    def list(self, *, target: Target | str = Target.MEMORY) -> builtins.list[str]:
        """The live entries, in file order."""
        return list(self.read(target=target).entries)

    def read(self, *, target: Target | str = Target.MEMORY) -> MemoryState:
        """Entries with budget and usage (``kenning memory show``); ``MemoryFileError``
        when the file on disk cannot be used."""
        return self._opened().memory.read(Target(target))


class Journal:
    """The day-by-day, append-only short-term memory (``kenning journal``)."""

    def __init__(self, opened: Opened) -> None:
        self._opened = opened

    def add(self, text: str, *, reason: str = "python: journal.add") -> JournalAppend:
        """Append ``text`` to today's file, scanned like hot memory (``JournalError``)."""
        return self._opened().journal.append(text, source="api", reason=reason)

    def read(self, day: date | None = None) -> str | None:
        """The journal of ``day`` (default: today, local time); None when there is none."""
        journal = self._opened().journal
        return journal.read(day if day is not None else journal.clock().date())

    def days(self) -> builtins.list[date]:
        """The days that have a journal, oldest first."""
        return self._opened().journal.days()


class Skills:
    """The skills library (``kenning skills``); changes are recorded as the user's."""

    def __init__(self, opened: Opened) -> None:
        self._opened = opened

    def _library(self) -> SkillLibrary:
        from kenning.skills.library import SkillLibrary

        return SkillLibrary.for_home(self._opened())

    def list(self, *, all: bool = False) -> builtins.list[SkillInfo]:
        """Active and stale skills by name; ``all=True`` adds archived and deleted ones."""
        return self._library().list_skills(archived=all, deleted=all)

    def read(self, name: str, file: str | None = None) -> SkillView:
        """SKILL.md (or a support ``file``) of a live skill; ``.text`` is its content.

        Reading is not a use: the skill's use count stays as it is.
        """
        return self._library().view(name, file, use=False)

    def create(
        self,
        name: str,
        description: str,
        body: str | None = None,
        *,
        tags: Sequence[str] = (),
        reason: str = "python: skills.create",
    ) -> ChangeResult:
        """Create skill ``name`` (``kenning skills create``); ``body`` is Markdown
        without front matter, a skeleton when None."""
        from kenning.skills.model import body_template, compose_skill_md

        text = compose_skill_md(
            name, description, body if body is not None else body_template(name), tags=list(tags)
        )
        return self._library().create(name, text, reason=reason)

    def patch(
        self,
        name: str,
        old: str,
        new: str,
        *,
        file: str | None = None,
        replace_all: bool = False,
        reason: str = "python: skills.patch",
    ) -> ChangeResult:
        """Replace ``old`` (which must occur once, unless ``replace_all``) with ``new``."""
        return self._library().patch(
            name, old, new, file=file, replace_all=replace_all, reason=reason
        )

    def delete(self, name: str, *, reason: str = "python: skills.delete") -> ChangeResult:
        """Move the skill to skills/.archive/ (``restore`` brings it back)."""
        return self._library().delete(name, reason=reason)

    def restore(self, name: str, *, reason: str = "python: skills.restore") -> ChangeResult:
        """Bring back a deleted skill, or make a stale or archived one active again."""
        return self._library().restore(name, reason=reason)


class Sessions:
    """The archive of past sessions (``kenning sessions``)."""

    def __init__(self, opened: Opened) -> None:
        self._opened = opened

    def list(self, *, limit: int = 20, sources: Sequence[str] = ()) -> builtins.list[Session]:
        """Sessions newest first; ``sources`` keeps only e.g. ("run", "cli")."""
        return self._opened().archive.sessions(limit=limit, sources=list(sources) or None)

    def get(self, session_id: str) -> Session:
        """One session's header; ``SessionNotFoundError`` when there is none."""
        found = self._opened().archive.session(session_id)
        if found is None:
            raise SessionNotFoundError(session_id)
        return found

    def messages(self, session_id: str, *, limit: int | None = None) -> builtins.list[Message]:
        """The session's messages in order, compacted ones included."""
        self.get(session_id)
        return self._opened().archive.messages(session_id, limit=limit)

    def import_file(
        self, fmt: str, path: Path | str, *, samples: Sequence[str] = ()
    ) -> ImportReport:
        """Import the transcripts in ``path``, written in ``fmt``, like ``kenning sessions
        import``: "locomo", "openai", "claude-code" (a file or a folder) or "jsonl".

        Importing the same sessions again adds nothing. The whole source is
        checked before anything is written: ``ImportFormatError`` says where it
        is wrong; damaged parts that could be skipped are in ``report.problems``.
        """
        from kenning.archive.importers import read_source, store_parsed

        parsed = read_source(fmt, Path(path).expanduser(), samples=samples)
        return store_parsed(self._opened().archive, parsed)
