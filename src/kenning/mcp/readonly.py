"""Read-only views of the home for ``kenning mcp --read-only``.

The server refuses writing tool calls before any handler runs; these views
make sure nothing *reachable* from the reading tools writes either:

- :class:`ReadOnlyArchive` opens ``state.db`` read-only in a way that creates
  and changes no file, not even SQLite's ``-wal`` and ``-shm``
  (``kenning.storage.sqlite.connection.connect_readonly``), so any write through it
  (recording a session, syncing the search index, storing recalls or
  embeddings) fails inside SQLite instead of landing. The search engine
  treats a failed index sync as a note ("the index could not be updated")
  and still finds what was archived since the last writable search: the
  queued messages are matched by keyword without writing the index
  (``index.pending_matches``), and only the query is embedded, so stored
  vectors serve the rest. Each call gets a fresh
  connection (``settle`` after it), because how to open depends on whether
  a writer is connected at that moment.
- :class:`ReadOnlySkillLibrary` loads skills without counting a use (which
  would write ``.usage.json`` and could reactivate a stale skill), and its
  one write path, ``apply``, refuses.

Hot memory, the journal and ``memory_get`` are plain file reads here.
"""

from __future__ import annotations

from pathlib import Path

from kenning.archive.store import Archive
from kenning.skills.changes import Change
from kenning.skills.errors import ErrorKind, SkillError
from kenning.skills.guards import USER, Writer
from kenning.skills.library import ChangeResult, SkillLibrary, SkillView
from kenning.storage import Storage, open_storage

READ_ONLY_NEXT_STEP = (
    "Do not retry: this server cannot write. Put what is worth keeping in your answer, or ask "
    "the user to connect Kenning without --read-only."
)


class ReadOnlyArchive(Archive):
    """An archive opened read-only, one call at a time (raises ArchiveError if no db yet)."""

    def __init__(self, path: Path, storage: Storage | None = None) -> None:
        super().__init__(path, storage=storage or open_storage(path, read_only=True))

    def settle(self) -> bool:
        """Close the connection after a call; False if what it read may be torn (read again)."""
        return self.storage.settle()


class ReadOnlySkillLibrary(SkillLibrary):
    def view(
        self, name: str, file: str | None = None, *, session_id: str | None = None, use: bool = True
    ) -> SkillView:
        return super().view(name, file, session_id=session_id, use=False)

    def apply(self, change: Change, by: Writer = USER, *, reason: str = "") -> ChangeResult:
        raise SkillError(
            ErrorKind.INVALID,
            f"Skill '{change.name}' was not changed: this Kenning server is read-only.",
            READ_ONLY_NEXT_STEP,
        )
