"""The on-disk format of a hot-memory file: entries separated by ``§`` lines.

Parsing is lenient where people are sloppy (CRLF, blank lines or spaces
around a separator, leading or doubled separators) and strict where a file
has clearly stopped being a list of entries (undecodable bytes, control
characters, unresolved merge-conflict markers, or one "entry" larger than the
whole budget, which is what a file looks like once its separators are lost).
Strictness matters because a write rewrites the whole file: rewriting a file
we misread would destroy the user's edit.
"""

from __future__ import annotations

import re

SEPARATOR_LINE = "§"
ENTRY_SEPARATOR = f"\n{SEPARATOR_LINE}\n"

_SEPARATOR = re.compile(r"^[ \t]*§[ \t]*$", re.MULTILINE)
_CONFLICT = re.compile(r"^(<{7}|={7}|>{7})( |$)", re.MULTILINE)
# C0 controls other than tab/newline, DEL, and C1 controls: never typed by hand.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


class UnparseableFileError(ValueError):
    """The file no longer reads as a list of entries; the message says why."""


def decode(raw: bytes) -> str:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UnparseableFileError(f"not valid UTF-8 (byte {exc.start})") from exc
    return text.removeprefix("\ufeff")


def parse_entries(text: str, *, max_entry_chars: int | None = None) -> list[str]:
    """Split ``text`` into entries; raise UnparseableFileError if it is not a list."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if match := _CONTROL.search(text):
        raise UnparseableFileError(f"contains control character U+{ord(match.group()):04X}")
    if _CONFLICT.search(text):
        raise UnparseableFileError("contains unresolved merge-conflict markers")
    entries = [chunk.strip() for chunk in _SEPARATOR.split(text)]
    entries = [entry for entry in entries if entry]
    if max_entry_chars is not None:
        for entry in entries:
            if len(entry) > max_entry_chars:
                raise UnparseableFileError(
                    f"one entry is {len(entry):,} chars, more than the whole budget "
                    f"({max_entry_chars:,}); the '§' separator lines were probably lost"
                )
    return entries


def serialise_entries(entries: list[str]) -> str:
    return ENTRY_SEPARATOR.join(entries) + "\n" if entries else ""


def usage(entries: list[str]) -> int:
    """Characters the entries take in the prompt (separators included)."""
    return len(ENTRY_SEPARATOR.join(entries))
