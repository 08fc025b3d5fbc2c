"""Hot memory (layer 1): small, bounded fact files frozen into every system prompt.

``MEMORY.md`` holds the agent's notes (environment facts, conventions, tool
quirks); ``USER.md`` holds who the user is. Entries are separated by a line
holding ``§``. See ``store`` for the write rules, ``snapshot`` for the
prompt block, ``tool`` for the model-facing ``memory`` tool, and
``memory_search`` / ``memory_get`` for the tools that find and read passages
in the memory files (hot memory, the journal, configured paths). A file that
cannot be used as it is (a link, a directory, too large, not entries) raises
``MemoryFileError`` from every reader.
"""

from kenning.memory.entries import ENTRY_SEPARATOR, parse_entries, serialise_entries
from kenning.memory.snapshot import MemorySnapshot
from kenning.memory.store import (
    MemoryFileError,
    MemoryStore,
    MemoryWriteError,
    Operation,
    Target,
    WriteResult,
)

__all__ = [
    "ENTRY_SEPARATOR",
    "MemoryFileError",
    "MemorySnapshot",
    "MemoryStore",
    "MemoryWriteError",
    "Operation",
    "Target",
    "WriteResult",
    "parse_entries",
    "serialise_entries",
]
