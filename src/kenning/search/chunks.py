"""The chunk index over memory files: MEMORY.md, USER.md, journal, extra paths.

Files are cut on line boundaries into chunks of about ``chunk_tokens``
tokens that overlap by about ``overlap`` tokens; tokens are counted by
:func:`kenning.tokens.estimate_tokens`, the estimator the context engine
and the skills index use. ``sync`` is incremental and cheap enough to run before every
search: a file whose size and mtime are unchanged is skipped, a changed one
is hashed, and only a changed hash re-chunks it (hand edits included);
files that disappeared lose their chunks, FTS rows and vectors (cascade +
trigger). MEMORY.md and USER.md never decay; journal files are dated by
their file name, other files by mtime.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from kenning.paths import HomeLayout
from kenning.storage.records import Chunk
from kenning.tokens import estimate_tokens

if TYPE_CHECKING:
    from kenning.storage import Storage

# v2: lines are costed by kenning.tokens (was four characters a token, CJK one
# a character), so stored chunks are cut again on the next sync.
CHUNK_RECIPE = "lines v2"
_JOURNAL_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})")


@dataclass(frozen=True)
class ChunkSync:
    files_indexed: int = 0
    files_removed: int = 0
    chunks_written: int = 0


def chunk_lines(lines: Sequence[str], tokens: int = 400, overlap: int = 80) -> list[Chunk]:
    """Greedy line packing; each next chunk starts ~``overlap`` tokens before the end."""
    costs = [max(1, estimate_tokens(line)) for line in lines]
    chunks: list[Chunk] = []
    start = 0
    while start < len(lines):
        end, total = start, 0
        while end < len(lines) and (end == start or total + costs[end] <= tokens):
            total += costs[end]
            end += 1
        text = "\n".join(lines[start:end])
        if text.strip():
            chunks.append(Chunk(start + 1, end, text))
        if end >= len(lines):
            break
        back, kept = end, 0
        while back > start + 1 and kept + costs[back - 1] <= overlap:
            back -= 1
            kept += costs[back]
        start = back
    return chunks


def memory_files(layout: HomeLayout, extra_paths: Sequence[str]) -> dict[str, tuple[Path, bool]]:
    """{stored path: (file, decays)}; stored paths are relative to the home inside it."""
    found: dict[str, tuple[Path, bool]] = {}

    def add(path: Path, decays: bool, *, own: bool = False) -> None:
        # The home's own memory files are never followed through a link (as the
        # memory store refuses them): a planted MEMORY.md -> /etc/passwd must not
        # reach memory_search. Extra paths are the user's choice and may be links.
        if own and (path.is_symlink() or path.parent.is_symlink()):
            return
        if path.is_file():
            try:
                key = str(path.resolve().relative_to(layout.root.resolve()))
            except ValueError:
                key = str(path.resolve())
            found.setdefault(key, (path, decays))

    add(layout.memory_file, False, own=True)
    add(layout.user_file, False, own=True)
    if layout.journal_dir.is_dir() and not layout.journal_dir.is_symlink():
        for path in sorted(layout.journal_dir.glob("*.md")):
            add(path, True, own=True)
    for raw in extra_paths:
        pattern = Path(raw).expanduser()
        base = pattern if pattern.is_absolute() else layout.root / pattern
        if any(ch in raw for ch in "*?["):
            anchor = Path(base.anchor)
            for path in sorted(anchor.glob(str(base.relative_to(anchor)))):
                add(path, True)
        else:
            add(base, True)
    return found


def _dated(path: Path, decays: bool, mtime: float) -> float:
    match = _JOURNAL_DATE.search(path.name)
    if decays and match:
        try:
            year, month, day = (int(g) for g in match.groups())
            return datetime(year, month, day, tzinfo=UTC).timestamp()
        except ValueError:
            pass
    return mtime


def sync(
    storage: Storage,
    layout: HomeLayout,
    extra_paths: Sequence[str] = (),
    *,
    tokens: int = 400,
    overlap: int = 80,
) -> ChunkSync:
    recipe = json.dumps([CHUNK_RECIPE, tokens, overlap])
    chunks = storage.chunks
    rechunk = chunks.recipe() != recipe
    current = memory_files(layout, extra_paths)
    stored = chunks.files()
    removed = [p for p in stored if p not in current]
    indexed = written = 0
    with storage.transaction():
        for gone in removed:
            chunks.remove_file(gone)
        for key, (path, decays) in current.items():
            try:
                st = path.stat()
                old = stored.get(key)
                if old and not rechunk and old[:2] == (st.st_size, st.st_mtime_ns):
                    continue
                data = path.read_bytes()
            except OSError:
                continue  # vanished or unreadable: the next sync sees it again
            digest = hashlib.sha256(data).hexdigest()
            if old and not rechunk and old[2] == digest:  # touched, not changed
                chunks.touch_file(key, st.st_size, st.st_mtime_ns)
                continue
            lines = data.decode("utf-8", errors="replace").splitlines()
            written += chunks.replace_file(
                key,
                size=st.st_size,
                mtime_ns=st.st_mtime_ns,
                digest=digest,
                decays=decays,
                dated_at=_dated(path, decays, st.st_mtime),
                chunks=chunk_lines(lines, tokens, overlap),
            )
            indexed += 1
        if rechunk:
            chunks.set_recipe(recipe)
    return ChunkSync(indexed, len(removed), written)
