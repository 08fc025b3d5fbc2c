"""The journal (layer 2a): short-term memory, one append-only Markdown file a day.

``memory/YYYY-MM-DD.md`` in the home holds what happened that day and what
the pre-compaction flush saved. Entries are only ever appended, never edited
or removed by Kenning. Each append holds the file's lock, re-reads the file
and replaces it atomically, so a killed writer can never leave half an entry
and a hand edit made meanwhile is kept. Entries are scanned like hot memory:
they reach prompts later (today's and yesterday's journal are loaded).

Day files use the local date, because "what did I do today" is asked in the
user's time zone; each entry's heading carries the local time and its source.

A day file is read only as a regular UTF-8 file inside the home, never through
a symbolic link and never past ``MAX_DAY_BYTES``: anything else raises
JournalError (nothing read, nothing written), so a link cannot put what it
points to into a prompt, or into history on the next append.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from pathlib import Path

from kenning import clock
from kenning.fsutil import UnsafeFileError, atomic_write, held, read_regular
from kenning.history import History
from kenning.paths import HomeLayout
from kenning.safety import threats

# A single journal entry larger than this is almost certainly a dump of tool
# output, which belongs in the archive, not in a file that enters prompts.
MAX_ENTRY_CHARS = 8_000
# Kenning only appends to a day file and never trims it, so this cap only
# catches mistakes (a log redirected into it): 16 MiB is 2,000 entries at the
# per-entry limit and still reads in milliseconds.
MAX_DAY_BYTES = 16 * 1024 * 1024

_DAY_FILE = re.compile(r"^(\d{4}-\d{2}-\d{2})\.md$")


class JournalError(ValueError):
    """A refused append or an unusable day file; nothing was written. The message says why."""


_FIXES = {
    "link": "Kenning does not follow links in the journal (a link can point outside the "
    "home); replace the link with a regular file, then retry.",
    "not_file": "Move it aside so Kenning can keep a regular file there, then retry.",
    "too_large": "Move it aside (or split it) so a new day file can start, then retry.",
    "unreadable": "Fix its permissions so Kenning can read it, then retry.",
}


class JournalBlockedError(JournalError):
    """An append the threat screen refused."""


@dataclass(frozen=True)
class JournalAppend:
    path: Path
    heading: str
    commit: str | None


class Journal:
    def __init__(
        self,
        layout: HomeLayout,
        history: History,
        *,
        clock: Callable[[], datetime] = clock.local,
    ) -> None:
        self.layout = layout
        self.history = history
        self.clock = clock

    def path_for(self, day: date) -> Path:
        return self.layout.journal_dir / f"{day.isoformat()}.md"

    def append(self, text: str, *, source: str = "cli", reason: str = "") -> JournalAppend:
        body = text.strip()
        if not body:
            raise JournalError("Nothing to append: the text is empty.")
        if len(body) > MAX_ENTRY_CHARS:
            raise JournalError(
                f"The entry is {len(body):,} chars (limit {MAX_ENTRY_CHARS:,}). "
                "Summarise it: keep decisions, rules and exact identifiers, not raw output."
            )
        findings = threats.scan(body, "memory")
        if findings:
            raise JournalBlockedError(
                f"Refused: the entry {threats.describe(findings)} "
                f"[{threats.explain(findings)}]. The journal is loaded into later prompts. "
                f"Nothing was written. {threats.advice(findings)}"
            )
        now = self.clock()
        path = self.path_for(now.date())
        heading = f"## {now:%H:%M:%S} · {source}"
        with held(path):
            existing = self._read_path(path) or ""
            if not existing:
                existing = f"# Journal {now.date().isoformat()}\n"
            separator = (
                "" if existing.endswith("\n\n") else ("\n" if existing.endswith("\n") else "\n\n")
            )
            atomic_write(path, f"{existing}{separator}{heading}\n{body}\n")
            first_line = body.splitlines()[0][:60]
            message = f"journal: append to {path.name} — {first_line}"
            if reason:
                message += f"\n\nWhy: {reason}"
            commit = self.history.record([path], message)
        return JournalAppend(path, heading, commit)

    def read(self, day: date) -> str | None:
        """The text of ``day``'s file, None if there is none (JournalError if unusable)."""
        return self._read_path(self.path_for(day))

    def _read_path(self, path: Path) -> str | None:
        try:
            found = read_regular(path, max_bytes=MAX_DAY_BYTES)
        except UnsafeFileError as exc:
            raise JournalError(f"{exc}. {_FIXES[exc.problem]}") from exc
        if found is None:
            return None
        try:
            return found[0].decode("utf-8")
        except UnicodeDecodeError as exc:
            raise JournalError(
                f"{path} is not valid UTF-8 text (byte {exc.start}). Nothing was read or "
                "written; fix the file by hand or move it aside, then retry."
            ) from exc

    def days(self) -> list[date]:
        """Days that have a journal file, oldest first."""
        if not self.layout.journal_dir.is_dir():
            return []
        found = []
        for child in self.layout.journal_dir.iterdir():
            match = _DAY_FILE.match(child.name)
            if match:
                try:
                    found.append(date.fromisoformat(match.group(1)))
                except ValueError:
                    continue
        return sorted(found)

    def recent(self, days: int = 2) -> list[tuple[date, str]]:
        """Today's and the previous ``days - 1`` days' journals that exist, oldest first."""
        today = self.clock().date()
        wanted = [today - timedelta(days=n) for n in reversed(range(days))]
        return [(day, text) for day in wanted if (text := self.read(day)) is not None]
