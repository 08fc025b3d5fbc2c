"""Well-formed Unicode at Kenning's edges: lone surrogates found, named and repaired.

A Python ``str`` can hold a lone UTF-16 surrogate (U+D800-U+DFFF), which no
UTF-8 encoder accepts: SQLite, the files, git and stdout all refuse it with a
``UnicodeEncodeError`` wherever the text happens to be written, long after it
came in. Two doors let them in: JSON, whose ``"\\ud800"`` escape is valid
syntax (a host that cut an emoji in half sends one), and ``sys.argv``, where
Python decodes bytes that are not UTF-8 to surrogates (``surrogateescape``).
So the edges check instead: the MCP transports and service repair what
arrives (:func:`repair_data`, :func:`repair_json`), the command line refuses
it with a usage error (:func:`first_surrogate`).

Repairing means what a UTF-8 decoder with ``errors="replace"`` does: a lone
surrogate becomes U+FFFD, and a high-low pair that arrived as two code points
becomes the one character it encodes.
"""

from __future__ import annotations

import json
import re
from typing import Any

REPLACEMENT = "\ufffd"
_SURROGATE = re.compile("[\ud800-\udfff]")
# A JSON escape that decodes to a surrogate (pairs included: they are checked after decoding).
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def first_surrogate(text: str) -> int:
    """The index of the first surrogate code point in ``text``, or -1 if it is well formed."""
    found = _SURROGATE.search(text)
    return found.start() if found else -1


def repair(text: str) -> str:
    """``text`` with pairs joined and lone surrogates replaced by U+FFFD (as UTF-16 decodes)."""
    if first_surrogate(text) < 0:
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def repair_data(value: Any) -> tuple[Any, list[str]]:
    """``value`` (JSON-like data) with every string repaired, and where repairs were made.

    The places are written as a path into the data (``content``,
    ``operations[0].old_text``); a key that needed repair is named as its
    repaired self. Unchanged data comes back as the very same object.
    """
    places: list[str] = []
    fixed = _repair(value, "", places)
    return fixed, places


def _repair(value: Any, where: str, places: list[str]) -> Any:
    if isinstance(value, str):
        fixed = repair(value)
        if fixed is not value:
            places.append(where or "(value)")
        return fixed
    if isinstance(value, dict):
        before = len(places)
        out: dict[Any, Any] = {}
        for key, item in value.items():
            name = repair(key) if isinstance(key, str) else key
            path = f"{where}.{name}" if where else str(name)
            if name is not key:
                places.append(f"{path} (key)")
            out[name] = _repair(item, path, places)
        return out if len(places) > before else value
    if isinstance(value, (list, tuple)):
        before = len(places)
        items = [_repair(item, f"{where}[{i}]", places) for i, item in enumerate(value)]
        if len(places) == before:
            return value
        return type(value)(items) if isinstance(value, tuple) else items
    return value


def repair_json(text: str) -> tuple[str, list[str]]:
    """One JSON document with the lone surrogates its escapes encode replaced by U+FFFD.

    Strict JSON parsers (pydantic's, which the MCP SDK uses) reject
    ``"\\ud800"`` outright, so the message is lost before anything can answer
    it; re-encoded, it parses and gets its answer. ``text`` comes back as is
    (and no places) when it has no such escape or is not JSON at all: then the
    parser's own error stands.
    """
    if not _SURROGATE_ESCAPE.search(text):
        return text, []
    try:
        value = json.loads(text)
    except ValueError:
        return text, []
    fixed, places = repair_data(value)
    if not places:  # only well-formed pairs
        return text, []
    tail = text[len(text.rstrip("\r\n")) :]
    return json.dumps(fixed, ensure_ascii=False, separators=(",", ":")) + tail, places
