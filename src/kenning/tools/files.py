"""``read_file``, ``write_file`` and ``edit_file``: the model's hands on the workspace.

Paths are relative to the context's working directory; where reads and
writes may go is decided in ``paths.py``. Invariants:

- A read is bounded (at most ``MAX_LINES`` lines and ``MAX_CHARS`` characters,
  lines cut at ``LONG_LINE``) and always says how to continue, so its result
  never needs spilling and a spill file can be paged through with it.
- A write is atomic (temp file, fsync, rename) and keeps the file's mode; a
  new file gets the usual mode for the umask.
- A change is shown as a unified diff and applied only as the chat's
  permission mode says (``permissions.py``: asked in ``ask`` mode, shown in
  ``auto-edit``, refused in ``plan``), after the checkpoint ``/undo`` uses.
- An edit replaces exactly one occurrence unless told otherwise, refuses when
  the file changed between its read and its rename, and on zero or several
  matches says where the near misses or the matches are.
"""

from __future__ import annotations

import bisect
import contextlib
import difflib
import os
import stat
import tempfile
from pathlib import Path

from kenning.fsutil import FileStamp
from kenning.tools.base import ApprovalRequest, ToolContext, ToolError, ToolResult, tool
from kenning.tools.paths import (
    BINARY_PROBE,
    binary_kind,
    check_read,
    check_write,
    display,
    is_credentials,
    looks_binary,
    missing,
)
from kenning.tools.permissions import authorize, permissions_of
from kenning.tools.spill import LONG_LINE

MAX_LINES = 2_000
MAX_CHARS = 60_000
COUNT_LINES_UP_TO = 256 * 1024 * 1024  # bytes; bigger files are not counted to the end


@tool(read_only=True, toolset="files", reads=["path"], spill=False)
def read_file(
    path: str, offset: int = 1, limit: int = MAX_LINES, *, ctx: ToolContext
) -> ToolResult:
    """Read a text file, with line numbers.

    Returns up to `limit` lines starting at line `offset`; the end of the output says how
    to read on. Lines longer than 2,000 characters are cut. Binary files are not shown.
    Use it to look at code before editing it and to page through saved (spilled) output.

    Args:
        path: The file, relative to the working directory (or absolute).
        offset: The first line to show, counting from 1.
        limit: How many lines to show (at most 2000).
    """
    target = ctx.resolve(path)
    check_read(target, ctx)
    if target.is_dir():
        raise ToolError(
            f"{display(target, ctx)} is a directory.",
            f"list it with list_files(path={display(target, ctx)!r}).",
        )
    if not target.exists():
        raise missing(target, ctx)
    with open(target, "rb") as handle:
        head = handle.read(BINARY_PROBE)
    size = target.stat().st_size
    if looks_binary(head):
        raise ToolError(
            f"{display(target, ctx)} is {binary_kind(head)} ({size:,} bytes), not text; "
            "read_file shows text only.",
            "inspect it with a shell command that understands the format (e.g. `file`), or "
            "leave it alone.",
        )
    start = max(offset, 1)
    count = min(max(limit, 1), MAX_LINES)
    shown: list[str] = []
    chars = 0
    last = start - 1
    cut_for_size = False
    with open(target, encoding="utf-8", errors="replace", newline=None) as text:
        for number, line in enumerate(text, start=1):
            if number < start:
                continue
            if len(shown) >= count:
                break
            line = line.rstrip("\n")
            if len(line) > LONG_LINE:
                extra = len(line) - LONG_LINE
                line = f"{line[:LONG_LINE]} … [{extra:,} more characters on this line]"
            entry = f"{number:>6}\t{line}"
            if shown and chars + len(entry) > MAX_CHARS:
                cut_for_size = True
                break
            shown.append(entry)
            chars += len(entry) + 1
            last = number
    total = _count_lines(target, size)
    shown_path = display(target, ctx)
    meta = {"path": str(target), "lines": total}
    if size == 0:
        return ToolResult(f"({shown_path} is empty.)", meta=meta)
    if not shown:
        total_text = f"{total:,} lines" if total is not None else "fewer lines"
        raise ToolError(
            f"offset {start} is past the end of {shown_path}, which has {total_text}.",
            f"read from the start with read_file(path={shown_path!r}).",
        )
    of = f" of {total:,}" if total is not None else ""
    more = total is None or last < total
    if more:
        why = " (output size limit)" if cut_for_size else ""
        footer = (
            f"(Lines {start}-{last}{of}{why}. Continue with "
            f"read_file(path={shown_path!r}, offset={last + 1}).)"
        )
    else:
        footer = f"(End of file. Lines {start}-{last}{of}.)"
    return ToolResult("\n".join(shown) + "\n" + footer, meta=meta)


def _count_lines(path: Path, size: int) -> int | None:
    if size > COUNT_LINES_UP_TO:
        return None
    lines = 0
    last = b""
    with open(path, "rb") as handle:
        while chunk := handle.read(1 << 20):
            lines += chunk.count(b"\n")
            last = chunk[-1:]
    return lines + (1 if last not in (b"", b"\n") else 0)


@tool(toolset="files", writes=["path"])
async def write_file(path: str, content: str, *, ctx: ToolContext) -> str:
    """Create a file, or replace a file's whole content.

    Parent folders are created. To change part of an existing file, prefer edit_file: it
    cannot lose the parts you did not mean to touch.

    Args:
        path: The file, relative to the working directory.
        content: The complete new content of the file.
    """
    target = ctx.resolve(path)
    check_write(target, ctx)
    if target.is_dir():
        raise ToolError(f"{display(target, ctx)} is a directory.", "choose a file path inside it.")
    stamp = FileStamp.of(target)
    before = _read_text(target) if target.is_file() else None
    await _permitted(ctx, target, before, content)
    try:
        _atomic_write(target, content, expect=stamp)
    except _ChangedError:
        raise _changed(display(target, ctx)) from None
    lines = content.count("\n") + (0 if content.endswith("\n") or not content else 1)
    what = f"{lines:,} lines, {len(content):,} characters"
    if before is None:
        return f"Created {display(target, ctx)} ({what})."
    old_lines = before.count("\n") + (0 if before.endswith("\n") or not before else 1)
    return f"Replaced the content of {display(target, ctx)}: now {what} (was {old_lines:,} lines)."


@tool(toolset="files", writes=["path"])
async def edit_file(
    path: str, old: str, new: str, replace_all: bool = False, *, ctx: ToolContext
) -> str:
    """Replace an exact piece of text in a file.

    `old` must match the file exactly, indentation and line breaks included, and only once
    (add surrounding lines to make it unique), unless replace_all is true. Read the file
    first so you copy the current text.

    Args:
        path: The file, relative to the working directory.
        old: The exact text to replace.
        new: The text to put in its place (may be empty to delete).
        replace_all: Replace every occurrence instead of exactly one.
    """
    target = ctx.resolve(path)
    check_write(target, ctx)
    shown = display(target, ctx)
    if not target.is_file():
        if target.is_dir():
            raise ToolError(f"{shown} is a directory.", "give the path of a file inside it.")
        raise ToolError(
            f"cannot edit {shown}: no such file.",
            "to create it, use write_file; otherwise check the path with list_files.",
        )
    if old == "":
        raise ToolError(
            "old is empty, so there is nothing to find.",
            "put the exact text to replace in old; to create a file use write_file.",
        )
    if old == new:
        raise ToolError("old and new are the same; the edit would change nothing.", None)
    stamp = FileStamp.of(target)
    text = _read_text(target)
    if "\r\n" in text and "\r\n" not in old and old.replace("\n", "\r\n") in text:
        old, new = old.replace("\n", "\r\n"), new.replace("\n", "\r\n")  # a CRLF file
    found = text.count(old)
    if found == 0:
        raise _no_match(text, old, shown)
    if found > 1 and not replace_all:
        where = _match_lines(text, old)
        listed = ", ".join(map(str, where[:10])) + (", …" if len(where) > 10 else "")
        raise ToolError(
            f"old matches {found} places in {shown} (lines {listed}).",
            "add neighbouring lines to old so it matches exactly one place, or pass "
            f"replace_all=true to replace all {found}.",
        )
    first = text.index(old)
    updated = text.replace(old, new) if replace_all else text.replace(old, new, 1)
    await _permitted(ctx, target, text, updated)
    try:
        _atomic_write(target, updated, expect=stamp)
    except _ChangedError:
        raise _changed(shown) from None
    line = text.count("\n", 0, first) + 1
    count = found if replace_all else 1
    summary = (
        f"Edited {shown}: replaced {count} occurrence{'s' if count != 1 else ''}"
        f" (first at line {line})."
    )
    if is_credentials(target):
        return summary  # never echo a secrets file back into the context
    return f"{summary}\n{_snippet(updated, line, new)}"


# -- helpers ---------------------------------------------------------------------------------


def unified_diff(before: str | None, after: str, shown: str) -> str:
    """The change as ``diff -u`` shows it (a new file: everything added)."""
    lines = difflib.unified_diff(
        (before or "").splitlines(keepends=True),
        after.splitlines(keepends=True),
        fromfile="/dev/null" if before is None else f"a/{shown}",
        tofile=f"b/{shown}",
    )
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


async def _permitted(ctx: ToolContext, target: Path, before: str | None, after: str) -> None:
    """Ask (or show) the change per the chat's permission mode, then checkpoint the file."""
    shown = display(target, ctx)
    diff = (
        "(a credentials file: its content is not shown)\n"
        if is_credentials(target)
        else unified_diff(before, after, shown)
    )
    verb = "create" if before is None else "change"
    await authorize(ctx, ApprovalRequest(shown, f"{verb} {shown}", kind="edit", detail=diff))
    perms = permissions_of(ctx)
    if perms is not None and perms.before_write is not None:
        perms.before_write(target)


def _changed(shown: str) -> ToolError:
    return ToolError(
        f"{shown} changed on disk while it was being edited; nothing was written.",
        f"read it again with read_file(path={shown!r}) and redo the edit on the new text.",
    )


def _read_text(target: Path) -> str:
    raw = target.read_bytes()
    if looks_binary(raw):
        raise ToolError(
            f"{target.name} is {binary_kind(raw)}, not text; the file tools only change text.",
            "leave binary files alone, or regenerate them with the program that made them.",
        )
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ToolError(
            f"{target.name} is not valid UTF-8 ({exc.reason} at byte {exc.start}); editing it "
            "as text could damage it.",
            "convert it with a shell tool such as iconv, or rewrite it whole with write_file.",
        ) from None


def _match_lines(text: str, old: str) -> list[int]:
    lines = []
    start = text.find(old)
    while start != -1:
        lines.append(text.count("\n", 0, start) + 1)
        start = text.find(old, start + len(old))
    return lines


def _no_match(text: str, old: str, shown: str) -> ToolError:
    lines = text.splitlines()
    number = _whitespace_match(lines, old)
    if number is not None:
        # Whitespace-only differences are the most common miss: tabs, indentation, line ends.
        return ToolError(
            f"old was not found in {shown}, but text differing only in whitespace or "
            f"indentation starts at line {number}.",
            f"read_file(path={shown!r}, offset={max(number - 2, 1)}, limit="
            f"{old.count(chr(10)) + 5}) and copy the text exactly into old.",
        )
    anchor = next((ln.strip() for ln in old.splitlines() if ln.strip()), "")
    hint = ""
    if anchor and len(lines) <= 20_000:
        stripped = [ln.strip() for ln in lines]
        close = difflib.get_close_matches(anchor, stripped, n=1, cutoff=0.6)
        if close:
            hint = f" The closest line is {stripped.index(close[0]) + 1}: {close[0][:200]!r}."
    return ToolError(
        f"old was not found in {shown}.{hint}",
        f"read the file again with read_file(path={shown!r}) and copy the exact current text, "
        "indentation included, into old.",
    )


def _whitespace_match(lines: list[str], old: str) -> int | None:
    """The line where ``old`` starts if whitespace is ignored, else None."""
    flat_old = " ".join(old.split())
    if not flat_old:
        return None
    starts: list[int] = []
    numbers: list[int] = []
    parts: list[str] = []
    pos = 0
    for number, line in enumerate(lines, start=1):
        flat = " ".join(line.split())
        if flat:
            starts.append(pos)
            numbers.append(number)
            parts.append(flat)
            pos += len(flat) + 1
    found = " ".join(parts).find(flat_old)
    if found < 0:
        return None
    return numbers[bisect.bisect_right(starts, found) - 1]


def _snippet(text: str, line: int, new: str, context: int = 2, most: int = 15) -> str:
    lines = text.splitlines()
    first = max(line - context, 1)
    last = min(line + new.count("\n") + context, len(lines), first + most - 1)
    body = "\n".join(f"{n:>6}\t{lines[n - 1][:LONG_LINE]}" for n in range(first, last + 1))
    return f"Lines {first}-{last} now read:\n{body}" if body else "The file is now empty."


class _ChangedError(RuntimeError):
    pass


def _read_umask() -> int:
    # os.umask can only be read by setting it, which races with threads creating
    # files; do it once, at import, before any tool runs.
    current = os.umask(0o022)
    os.umask(current)
    return current


_UMASK = _read_umask()


def _atomic_write(path: Path, text: str, *, expect: FileStamp | None = None) -> None:
    """Write ``text`` to ``path`` atomically, keeping the mode of the file it replaces."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        mode = 0o666 & ~_UMASK
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(text.encode("utf-8"))
            handle.flush()
            os.fchmod(handle.fileno(), mode)
            os.fsync(handle.fileno())
        if expect is not None and FileStamp.of(path) != expect:
            raise _ChangedError(str(path))
        os.replace(tmp, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
