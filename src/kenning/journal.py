"""The journal (layer 2a): short-term memory, one append-only Markdown file a day.

``memory/YYYY-MM-DD.md`` in the home holds what happened that day and what
the pre-compaction flush saved. Entries are only ever appended, never edited
or removed by Kenning. Each append holds the file's lock, re-reads the file
and replaces it atomically, so a killed writer can never leave half an entry
and a hand edit made meanwhile is kept. Entries are scanned like hot memory:
they reach prompts later (today's and yesterday's journal are loaded).

Day files use the local date, because "what did I do today" is asked in the
user's time zone; each entry's heading carries the local time and its source.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from pathlib import Path

from kenning import clock
from kenning.fsutil import atomic_write, held
from kenning.history import History
from kenning.paths import HomeLayout
from kenning.safety import threats

# A single journal entry larger than this is almost certainly a dump of tool
# output, which belongs in the archive, not in a file that enters prompts.
MAX_ENTRY_CHARS = 8_000

_DAY_FILE = re.compile(r"^(\d{4}-\d{2}-\d{2})\.md$")


class JournalError(ValueError):
    """A refused append; nothing was written. The message says what to do."""


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
            existing = path.read_text(encoding="utf-8") if path.exists() else ""
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
        path = self.path_for(day)
        return path.read_text(encoding="utf-8") if path.exists() else None

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
