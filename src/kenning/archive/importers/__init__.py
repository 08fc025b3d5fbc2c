"""Importers: other tools' transcripts into the archive, each re-importable without duplicates.

Every format is a parser (``parse_<format>(path) -> ParsedImport``, pure, whole
source validated before anything is written) plus ``common.store``, which
writes each session in one transaction under a content-derived ``import_key``.
``FORMATS`` maps the CLI's format names to the parsers; ``STORERS`` names the
formats with a storer of their own (jsonl: sessions keyed by their id).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from kenning.archive.importers.claude_code import import_claude_code, parse_claude_code
from kenning.archive.importers.common import (
    ImportedSession,
    ImportFormatError,
    ImportReport,
    ParsedImport,
    Problem,
    Progress,
    store,
)
from kenning.archive.importers.jsonl import JsonlReport, import_jsonl, parse_jsonl, store_jsonl
from kenning.archive.importers.locomo import (
    LocomoConversation,
    LocomoQuestion,
    LocomoSession,
    LocomoTurn,
    import_locomo,
    normalise_evidence,
    parse_locomo,
    read_locomo,
)
from kenning.archive.importers.openai import import_openai, parse_openai

FORMATS: dict[str, Callable[[Path], ParsedImport]] = {
    "locomo": parse_locomo,
    "openai": parse_openai,
    "claude-code": parse_claude_code,
    "jsonl": parse_jsonl,
}
# Formats that store differently from ``common.store``: jsonl appends new lines
# to sessions already in the archive instead of keying whole sessions.
STORERS: dict[str, Callable[..., ImportReport]] = {"jsonl": store_jsonl}

__all__ = [
    "FORMATS",
    "STORERS",
    "ImportFormatError",
    "ImportReport",
    "ImportedSession",
    "JsonlReport",
    "LocomoConversation",
    "LocomoQuestion",
    "LocomoSession",
    "LocomoTurn",
    "ParsedImport",
    "Problem",
    "Progress",
    "import_claude_code",
    "import_jsonl",
    "import_locomo",
    "import_openai",
    "normalise_evidence",
    "parse_claude_code",
    "parse_jsonl",
    "parse_locomo",
    "parse_openai",
    "read_locomo",
    "store",
    "store_jsonl",
]
