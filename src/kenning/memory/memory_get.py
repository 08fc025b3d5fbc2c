"""``memory_get``: read lines of a memory file, for a model that found a chunk by search.

Only memory files can be read this way — MEMORY.md, USER.md, the journal and
the extra paths configured for the index — so the tool cannot become a
general file reader that escapes the home (``../``, absolute paths outside
the allowed set, symlinks pointing elsewhere are all refused). Output is
numbered lines, capped, with the exact call that reads the next part.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kenning.paths import HomeLayout

MAX_LINES = 200
MAX_CHARS = 20_000

SCHEMA: dict[str, Any] = {
    "name": "memory_get",
    "description": (
        "Read lines of a memory file (MEMORY.md, USER.md, a journal day file such as "
        "memory/2026-11-29.md, or a configured extra path) — typically the path and line range "
        "that memory_search returned. Returns numbered lines; long files come in parts."
    ),
    "parameters": {
        "type": "object",
        "properties": {
            "path": {
                "type": "string",
                "description": "Path as memory_search shows it, e.g. memories/MEMORY.md.",
            },
            "start_line": {"type": "integer", "description": "First line (1-based). Default 1."},
            "end_line": {"type": "integer", "description": "Last line, inclusive. Optional."},
        },
        "required": ["path"],
    },
}


class MemoryGetError(ValueError):
    """A refused read; the message says what is allowed."""


@dataclass(frozen=True)
class MemoryGet:
    layout: HomeLayout
    extra_paths: Sequence[Path] = ()

    def resolve(self, raw: str) -> Path:
        if not raw or "\x00" in raw:
            raise MemoryGetError("path is empty or contains a NUL byte")
        candidate = Path(raw.replace("\\", "/")).expanduser()
        if not candidate.is_absolute():
            candidate = self.layout.root / candidate
        resolved = candidate.resolve()
        if resolved in self._allowed_files() or self._in_journal(resolved):
            return resolved
        raise MemoryGetError(
            f"{raw!r} is not a memory file. Readable: memories/MEMORY.md, memories/USER.md, "
            "memory/YYYY-MM-DD.md (the journal) and configured extra paths."
        )

    def __call__(self, args: dict[str, Any]) -> dict[str, Any]:
        try:
            path = self.resolve(str(args.get("path", "")))
            start = int(args.get("start_line") or 1)
            end_raw = args.get("end_line")
            end = int(end_raw) if end_raw is not None else None
        except (MemoryGetError, ValueError, TypeError) as exc:
            return {
                "success": False,
                "message": str(exc),
                "next_step": "Use a path from memory_search.",
            }
        if not path.exists():
            return {
                "success": False,
                "message": f"{args.get('path')} does not exist (yet).",
                "next_step": "Search again with memory_search; the file may have been renamed.",
            }
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        start = max(start, 1)
        last = len(lines) if end is None else min(end, len(lines))
        last = min(last, start + MAX_LINES - 1)
        out: list[str] = []
        size = 0
        shown_to = start - 1
        for number in range(start, last + 1):
            line = f"{number:>5}  {lines[number - 1]}"
            if size + len(line) > MAX_CHARS and out:
                break
            out.append(line)
            size += len(line) + 1
            shown_to = number
        result: dict[str, Any] = {
            "success": True,
            "path": self._display(path),
            "lines": f"{start}-{shown_to} of {len(lines)}",
            "text": "\n".join(out),
        }
        wanted_end = len(lines) if end is None else min(end, len(lines))
        if shown_to < wanted_end:
            result["next_step"] = (
                f"More follows: call memory_get with path={self._display(path)!r}, "
                f"start_line={shown_to + 1}."
            )
        return result

    def _allowed_files(self) -> set[Path]:
        files = {self.layout.memory_file.resolve(), self.layout.user_file.resolve()}
        for extra in self.extra_paths:
            base = extra.expanduser().resolve()
            if base.is_dir():
                files.update(p.resolve() for p in base.rglob("*.md"))
            else:
                files.add(base)
        return files

    def _in_journal(self, resolved: Path) -> bool:
        journal = self.layout.journal_dir.resolve()
        return resolved.parent == journal and resolved.suffix == ".md"

    def _display(self, path: Path) -> str:
        try:
            return str(path.relative_to(self.layout.root.resolve()))
        except ValueError:
            return str(path)
