"""What a screen reports: one :class:`Finding` per rule that fired, with the span it fired on."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from typing import Final

from kenning.safety import compiled
from kenning.safety.patterns.schema import Category
from kenning.safety.unicode import is_suspect

EXCERPT_MAX: Final = 80


@dataclass(frozen=True)
class Finding:
    """One reason a text is unsafe."""

    pattern_id: str  # short stable id of the rule that fired, e.g. "ignore_previous_instructions"
    category: Category
    reason: str  # one human sentence; never contains the matched text
    excerpt: str  # the matched text, <= 80 chars, invisible chars as \u escapes, secrets redacted
    span: tuple[int, int] = (0, 0)  # where in the scanned text it fired (start, end)
    layer: str = "pattern"  # pattern, clause, structure, decoded:<encoding>, unicode, learned

    @property
    def where(self) -> str:
        """'chars 12-40', for a refusal that shows the user the offending span."""
        start, end = self.span
        return f"chars {start}-{end}"


# Printable ASCII and the whitespace an excerpt turns into spaces: nothing to escape.
_PLAIN: Final = compiled.regex(r"[\t\n\r\x0c\x20-\x7e]*")


def excerpt(matched: str, *, redact: bool = False) -> str:
    """One line, at most 80 characters, invisible characters as escapes."""
    head = matched[:400]
    if _PLAIN.fullmatch(head) is None:
        head = "".join(_escape_char(c) for c in head)
    text = " ".join(head.split())
    if redact:  # never echo a credential into an error message or a log
        return text[:6] + "…[redacted]"
    return text if len(text) <= EXCERPT_MAX else text[: EXCERPT_MAX - 1] + "…"


def _escape_char(ch: str) -> str:
    """Whitespace as a space; invisible characters and line separators as a \\u escape."""
    if ch in "\t\n\r\x0c":
        return " "
    if is_suspect(ch) or unicodedata.category(ch) in ("Zl", "Zp"):
        return f"\\u{ord(ch):04x}" if ord(ch) <= 0xFFFF else f"\\U{ord(ch):08x}"
    return ch
