"""Importers: other tools' transcripts into the archive, each re-importable without duplicates.

Every format is a parser (``parse_<format>(path) -> ParsedImport``, pure, whole
source validated before anything is written) plus ``common.store``, which
writes each session in one transaction under a content-derived ``import_key``.
``FORMATS`` maps the CLI's format names to the parsers; ``STORERS`` names the
formats with a storer of their own (jsonl and claude-code: sessions keyed by
their id, updated in place on a re-import).
``read_source`` and ``store_parsed`` are the two steps of ``kenning sessions
import`` (and of ``home.sessions.import_file``). Installed plugins add formats
through their ``register_importers`` hook (``kenning.plugins``): a parser
``(path) -> ParsedImport`` stored with ``common.store``; a built-in of the same
name wins.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
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
from kenning.archive.importers.host_keyed import HostReport, store_host_keyed
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
from kenning.archive.importers.sources import check_source
from kenning.archive.store import Archive

FORMATS: dict[str, Callable[[Path], ParsedImport]] = {
    "locomo": parse_locomo,
    "openai": parse_openai,
    "chatgpt": parse_openai,  # the name people know the export by: conversations.json
    "claude-code": parse_claude_code,
    "jsonl": parse_jsonl,
}
# Formats that store differently from ``common.store``: jsonl appends new lines
# to sessions already in the archive instead of keying whole sessions.
# Claude Code sessions are keyed by their own session id and messages by line
# uuid, so a re-import updates them in place (``host_keyed``).
STORERS: dict[str, Callable[..., ImportReport]] = {
    "jsonl": store_jsonl,
    "claude-code": store_host_keyed,
}

Parser = Callable[[Path], ParsedImport]


def plugin_formats() -> dict[str, Parser]:
    """The import formats installed plugins add (loads the plugins on first use)."""
    from kenning import plugins

    return plugins.registry().accepted("importers", FORMATS)


def format_names() -> list[str]:
    """Every format ``read_source`` accepts: the built-ins, then the plugins'."""
    return [*FORMATS, *sorted(plugin_formats())]


def read_source(fmt: str, path: Path, *, samples: Sequence[str] = ()) -> ParsedImport:
    """Parse ``path`` as ``fmt``; nothing is written. ``samples`` (locomo only)
    keeps just those conversations.

    Raises ``ImportFormatError`` (the path and what is wrong with it) and
    ``ValueError`` for an unknown format or ``samples`` with another format.
    """
    parser = FORMATS.get(fmt) or plugin_formats().get(fmt)
    if parser is None:
        raise ValueError(f"unknown import format {fmt!r}; use one of {format_names()}")
    if samples and fmt != "locomo":
        raise ValueError("samples only apply to the locomo format")
    # Before any read: a FIFO or a device would block it, or never end.
    check_source(path, folder_ok=fmt == "claude-code")
    if samples:
        return parse_locomo(path, sample_ids=samples)
    if fmt in FORMATS:
        return parser(path)
    return _run_plugin_parser(fmt, parser, path)


def _run_plugin_parser(fmt: str, parser: Parser, path: Path) -> ParsedImport:
    """A plugin's parser, whose bugs become an import error naming it, not a traceback."""
    try:
        parsed = parser(path)
    except ImportFormatError:
        raise
    except Exception as exc:
        raise ImportFormatError(
            path, "", f"the plugin importer {fmt!r} failed: {type(exc).__name__}: {exc}"
        ) from exc
    if not isinstance(parsed, ParsedImport):
        raise ImportFormatError(
            path,
            "",
            f"the plugin importer {fmt!r} returned {type(parsed).__name__}, not a ParsedImport",
        )
    return parsed


def store_parsed(
    archive: Archive, parsed: ParsedImport, *, progress: Progress | None = None
) -> ImportReport:
    """Write what ``read_source`` parsed, skipping sessions already imported."""
    return STORERS.get(parsed.format, store)(archive, parsed, progress=progress)


__all__ = [
    "FORMATS",
    "STORERS",
    "HostReport",
    "ImportFormatError",
    "ImportReport",
    "ImportedSession",
    "JsonlReport",
    "LocomoConversation",
    "LocomoQuestion",
    "LocomoSession",
    "LocomoTurn",
    "ParsedImport",
    "Parser",
    "Problem",
    "Progress",
    "format_names",
    "import_claude_code",
    "import_jsonl",
    "import_locomo",
    "import_openai",
    "normalise_evidence",
    "parse_claude_code",
    "parse_jsonl",
    "parse_locomo",
    "parse_openai",
    "plugin_formats",
    "read_locomo",
    "read_source",
    "store",
    "store_host_keyed",
    "store_jsonl",
    "store_parsed",
]
