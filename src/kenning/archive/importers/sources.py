"""Reading import sources safely: regular files only, damage located, never a hang or a traceback.

Invariants:

* Only regular files are read. A FIFO, a device or a socket is refused before
  a byte is read (it is opened non-blocking, then checked), so a named pipe
  given by mistake cannot hang the import.
* Nesting deeper than ``MAX_DEPTH`` arrays/objects is refused as "too deeply
  nested", at the line (and column) where it passes the limit, whether the
  parser would have overflowed the stack or the archive would later: no
  ``RecursionError`` escapes.
* JSON Lines are read line by line from bytes: a line that is not UTF-8, not
  JSON or too deep is a ``Problem`` for that line alone, and the other lines
  are still read. Lines end at ``\\n`` only (a JSON string may hold U+2028).
"""

from __future__ import annotations

import json
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# Real transcripts nest a dozen levels; tool inputs rarely more than a few
# dozen. Far below the interpreter's recursion limit, so anything accepted can
# also be hashed and stored.
MAX_DEPTH = 200
TOO_DEEP = f"too deeply nested (more than {MAX_DEPTH} levels of arrays/objects)"

_UTF8_BOM = b"\xef\xbb\xbf"


class ImportFormatError(ValueError):
    """The source does not have the expected shape; the message says where."""

    def __init__(self, path: Path | str, where: str, problem: str) -> None:
        self.path = str(path)
        self.where = where
        self.problem = problem
        super().__init__(f"{path}: {where}: {problem}" if where else f"{path}: {problem}")

    def as_problem(self) -> Problem:
        return Problem(self.path, self.where, self.problem)


_LINE = re.compile(r"line (\d+)(?: column (\d+))?")


@dataclass(frozen=True)
class Problem:
    """A damaged part of a source that was skipped: a line, an item, or a whole file."""

    path: str
    where: str  # "line 12 column 3", "item 4", or "" for the whole file
    problem: str

    @property
    def line(self) -> int | None:
        match = _LINE.match(self.where)
        return int(match[1]) if match else None

    @property
    def location(self) -> str:
        """``file:12:3`` for a line (and column), ``file (item 4)`` otherwise."""
        match = _LINE.match(self.where)
        if match:
            rest = self.where[match.end() :].lstrip(", ")
            column = f":{match[2]}" if match[2] else ""
            return f"{self.path}:{match[1]}{column}" + (f" ({rest})" if rest else "")
        return f"{self.path} ({self.where})" if self.where else self.path

    def __str__(self) -> str:
        return f"{self.location}: {self.problem}"

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "where": self.where, "line": self.line, "problem": self.problem}


def fail(problem: Problem) -> ImportFormatError:
    return ImportFormatError(problem.path, problem.where, problem.problem)


# -- files ----------------------------------------------------------------------

_KINDS = (
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISDIR, "a folder"),
)


def not_regular(mode: int) -> str | None:
    """What a non-regular file is ("a FIFO (named pipe)"), or None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def refusal(path: Path, kind: str, advice: str = "") -> ImportFormatError:
    return ImportFormatError(path, "", f"is {kind}, not a regular file{advice}")


def check_source(path: Path, *, folder_ok: bool = False) -> None:
    """Refuse, before any read, a path that is neither a regular file nor (if allowed) a folder."""
    try:
        mode = path.stat().st_mode
    except OSError as exc:
        raise ImportFormatError(path, "", f"cannot read: {exc.strerror or exc}") from exc
    kind = not_regular(mode)
    if kind is not None and not (folder_ok and stat.S_ISDIR(mode)):
        what = "a transcript file or a folder of them" if folder_ok else "the exported file itself"
        raise refusal(path, kind, f"; give {what}")


def read_bytes(path: Path) -> bytes:
    """The bytes of a regular file; anything else is refused without blocking on it."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        # Non-blocking: opening a FIFO for reading would otherwise wait for a writer.
        fd = os.open(path, flags)
    except OSError as exc:
        raise ImportFormatError(path, "", f"cannot read: {exc.strerror or exc}") from exc
    with os.fdopen(fd, "rb") as handle:
        kind = not_regular(os.fstat(fd).st_mode)
        if kind is not None:
            raise refusal(path, kind)
        try:
            return handle.read()
        except OSError as exc:
            raise ImportFormatError(path, "", f"cannot read: {exc.strerror or exc}") from exc


def read_text(path: Path) -> str:
    try:
        return read_bytes(path).decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ImportFormatError(path, f"byte {exc.start}", "not UTF-8 text") from exc


# -- JSON -------------------------------------------------------------------------


def too_deep(value: Any, limit: int = MAX_DEPTH) -> bool:
    """True when ``value`` nests more than ``limit`` arrays/objects (checked without recursion)."""
    stack: list[tuple[Any, int]] = [(value, 1)] if isinstance(value, dict | list) else []
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return True
        children = item.values() if isinstance(item, dict) else item
        stack.extend((c, depth + 1) for c in children if isinstance(c, dict | list))
    return False


_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"?|[\[\]{}]', re.DOTALL)


def deep_position(text: str, limit: int = MAX_DEPTH) -> tuple[int, int] | None:
    """(line, column) where ``text`` first nests deeper than ``limit``; strings are skipped."""
    depth = 0
    for match in _TOKEN.finditer(text):
        char = match.group()[0]
        if char in "[{":
            depth += 1
            if depth > limit:
                index = match.start()
                return text.count("\n", 0, index) + 1, index - text.rfind("\n", 0, index)
        elif char in "]}":
            depth -= 1
    return None


def parse_json(text: str, path: Path, *, line: int | None = None, depth: bool = True) -> Any:
    """One JSON value; ``ImportFormatError`` names the line (and column) of what is wrong.

    ``line`` is the line number of ``text`` within the file (JSON Lines); the
    reported lines are then that one. ``depth=False`` leaves the depth check of
    what parsed to the caller (who may skip one deep item of a list).
    """
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        where = f"line {line if line is not None else exc.lineno} column {exc.colno}"
        raise ImportFormatError(path, where, f"invalid JSON ({exc.msg})") from exc
    except RecursionError:
        # The parser itself ran out of stack; no value, so no item to skip.
        raise deep_error(path, text, line) from None
    if depth and too_deep(value):
        raise deep_error(path, text, line)
    return value


def deep_error(path: Path, text: str, line: int | None = None) -> ImportFormatError:
    """ "Too deeply nested", at the line and column where ``text`` passes the limit."""
    at = deep_position(text)
    where = "" if at is None else f"line {line or at[0]} column {at[1]}"
    return ImportFormatError(path, where, TOO_DEEP)


def load_json(path: Path, text: str | None = None) -> Any:
    """The one JSON document in ``path``; a syntax error names its line and column."""
    return parse_json(read_text(path) if text is None else text, path)


def read_jsonl(
    path: Path, data: bytes | None = None
) -> tuple[list[tuple[int, Any]], list[Problem]]:
    """``(line number, value)`` for each good non-blank line, and a ``Problem`` for each other."""
    raw = read_bytes(path) if data is None else data
    values: list[tuple[int, Any]] = []
    problems: list[Problem] = []
    for number, chunk in enumerate(raw.removeprefix(_UTF8_BOM).split(b"\n"), 1):
        try:
            line = chunk.decode("utf-8")
        except UnicodeDecodeError as exc:
            where = f"line {number} column {exc.start + 1}"
            problems.append(Problem(str(path), where, "not UTF-8 text"))
            continue
        if not line.strip():
            continue
        try:
            values.append((number, parse_json(line, path, line=number)))
        except ImportFormatError as exc:
            problems.append(exc.as_problem())
    return values, problems
