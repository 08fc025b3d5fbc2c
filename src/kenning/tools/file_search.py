"""``list_files`` and ``search_files``: finding things in the workspace, bounded.

Both walk breadth-first (``paths.walk``), so a capped listing shows the top of
the tree before its depths; both skip ``.git``, dependency folders and
virtualenvs and say so; both stop at a fixed number of results and say how to
narrow the request. ``search_files`` skips binary files, credential files and
files over ``MAX_FILE_BYTES``, and shows an excerpt around the match for long
lines (a spilled JSON result is one line per value).
"""

from __future__ import annotations

import re
from pathlib import Path

from kenning.tools.base import ToolContext, ToolError, tool
from kenning.tools.paths import (
    BINARY_PROBE,
    WALK_LIMIT,
    WalkStats,
    check_read,
    display,
    is_credentials,
    looks_binary,
    matches,
    missing,
    walk,
)

MAX_ENTRIES = 500
MAX_MATCHES = 200
MAX_LINE_CHARS = 300
MAX_FILE_BYTES = 20 * 1024 * 1024


@tool(read_only=True, toolset="files", reads=["path"])
def list_files(path: str = ".", pattern: str | None = None, *, ctx: ToolContext) -> str:
    """List the files under a folder, recursively, shallow ones first.

    Skips .git, node_modules, virtualenvs and caches. At most 500 paths are shown.

    Args:
        path: The folder, relative to the working directory.
        pattern: Only files whose name matches this glob (e.g. "*.py"); a pattern with a
            "/" matches the path relative to the folder (e.g. "src/**/*.py").
    """
    root = ctx.resolve(path)
    check_read(root, ctx)
    if not root.exists():
        raise missing(root, ctx, verb="list")
    if root.is_file():
        return f"{display(root, ctx)} is a file ({root.stat().st_size:,} bytes)."
    stats = WalkStats()
    found: list[str] = []
    total = 0
    for _, rel in walk(root, stats):
        if pattern and not matches(rel, pattern):
            continue
        total += 1
        if len(found) < MAX_ENTRIES:
            found.append(rel)
    where = display(root, ctx) if root != ctx.cwd else f". ({ctx.cwd})"
    which = f" matching {pattern!r}" if pattern else ""
    if not found:
        return f"No files{which} under {where}.{_skipped_note(stats)}"
    lines = [f"{total:,} file{'s' if total != 1 else ''}{which} under {where}:", *sorted(found)]
    if total > len(found):
        lines.append(
            f"… and {total - len(found):,} more not shown. Narrow it with a deeper path= or a "
            "pattern= such as '*.py'."
        )
    note = _skipped_note(stats)
    if note:
        lines.append(note.strip())
    return "\n".join(lines)


@tool(read_only=True, toolset="files", reads=["path"])
def search_files(
    pattern: str, path: str = ".", glob: str | None = None, *, ctx: ToolContext
) -> str:
    """Search file contents for a regular expression; returns file:line: text for each match.

    Python regex syntax; add (?i) at the start to ignore case. Searches a folder
    recursively (skipping .git, node_modules, virtualenvs, binary files) or one file. At
    most 200 matches are shown.

    Args:
        pattern: The regular expression, e.g. "def \\w+_tool" or "TODO".
        path: A folder or a single file, relative to the working directory.
        glob: Only search files whose name matches this glob, e.g. "*.py".
    """
    try:
        regex = re.compile(pattern)
    except re.error as exc:
        raise ToolError(
            f"{pattern!r} is not a valid regular expression ({exc}).",
            "escape special characters with a backslash (\\( \\[ \\. \\*) or search for a "
            "plainer piece of text.",
        ) from None
    root = ctx.resolve(path)
    check_read(root, ctx)
    if not root.exists():
        raise missing(root, ctx, verb="search")
    stats = WalkStats()
    files = [(root, root.name)] if root.is_file() else walk(root, stats)
    hits: list[str] = []
    searched = 0
    skipped_secret = 0
    complete = True
    for file, rel in files:
        if glob and not matches(rel, glob):
            continue
        if is_credentials(file):
            skipped_secret += 1
            continue
        shown = display(file, ctx)
        searched += 1
        if not _search_one(file, shown, regex, hits):
            complete = False
            break
    header = f"for /{pattern}/ in {display(root, ctx) if root != ctx.cwd else '.'}"
    notes = []
    if skipped_secret:
        notes.append(f"{skipped_secret} credentials file(s) were not searched.")
    if stats.truncated:
        notes.append(f"The walk stopped after {WALK_LIMIT:,} entries; search a narrower path.")
    skipped = _skipped_note(stats).strip()
    if skipped:
        notes.append(skipped)
    if not hits:
        return "\n".join([f"No matches {header} ({searched:,} files searched).", *notes]).strip()
    lines = [f"{len(hits):,} match{'es' if len(hits) != 1 else ''} {header}:", *hits]
    if not complete:
        lines.append(
            f"(Stopped at {MAX_MATCHES} matches; more exist. Narrow it with path=, glob= or a "
            "more specific pattern.)"
        )
    return "\n".join([*lines, *notes])


def _search_one(file: Path, shown: str, regex: re.Pattern[str], hits: list[str]) -> bool:
    """Append this file's matches to ``hits``; False once the cap is reached."""
    try:
        if file.stat().st_size > MAX_FILE_BYTES:
            return True
        with open(file, "rb") as probe:
            if looks_binary(probe.read(BINARY_PROBE)):
                return True
        with open(file, encoding="utf-8", errors="replace") as text:
            for number, line in enumerate(text, start=1):
                found = regex.search(line)
                if found is None:
                    continue
                if len(hits) >= MAX_MATCHES:
                    return False
                hits.append(f"{shown}:{number}: {_excerpt(line.rstrip(), found)}")
    except OSError:
        return True
    return True


def _excerpt(line: str, found: re.Match[str]) -> str:
    if len(line) <= MAX_LINE_CHARS:
        return line
    start = max(found.start() - 100, 0)
    end = min(start + MAX_LINE_CHARS, len(line))
    before = "…" if start else ""
    after = "…" if end < len(line) else ""
    return f"{before}{line[start:end]}{after}"


def _skipped_note(stats: WalkStats) -> str:
    if not stats.skipped:
        return ""
    names = ", ".join(sorted(stats.skipped)[:8])
    return f" (Skipped folders: {names}.)"
