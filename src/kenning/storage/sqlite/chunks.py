"""Memory-file chunks in ``state.db``: ``memory_files``, ``memory_chunks``, ``chunk_fts``.

A file's chunks, their FTS rows and vectors go together: deleting a file's
row cascades to its chunks and a trigger drops their FTS rows and vectors
(migration m003). What to chunk and when is ``search.chunks``' business.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from kenning.storage.query import SearchFilters
from kenning.storage.sqlite import scope as scope_sql
from kenning.storage.sqlite.connection import Conn, translate_errors
from kenning.storage.sqlite.vectors import state_get, state_set
from kenning.storage.text import MAX_INDEX_CHARS, cjk_index_text

if TYPE_CHECKING:
    from kenning.storage.records import Chunk


@translate_errors
class SqliteChunks:
    def __init__(self, conn: Callable[[], Conn]) -> None:
        self._conn = conn

    def recipe(self) -> str | None:
        """How the stored chunks were cut (None: never recorded)."""
        return state_get(self._conn(), "chunking")

    def set_recipe(self, recipe: str) -> None:
        state_set(self._conn(), "chunking", recipe)

    def files(self) -> dict[str, tuple[int, int, str]]:
        """stored path -> (size, mtime_ns, sha256) of every indexed file."""
        rows = self._conn().execute("SELECT path, size, mtime_ns, hash FROM memory_files")
        return {r[0]: (int(r[1]), int(r[2]), str(r[3])) for r in rows}

    def remove_file(self, path: str) -> None:
        """Forget ``path``: its chunks, their FTS rows and vectors go with it."""
        conn = self._conn()
        conn.execute("DELETE FROM memory_chunks WHERE path = ?", (path,))
        conn.execute("DELETE FROM memory_files WHERE path = ?", (path,))

    def touch_file(self, path: str, size: int, mtime_ns: int) -> None:
        """Record a new size and mtime for an unchanged file (same content hash)."""
        self._conn().execute(
            "UPDATE memory_files SET size = ?, mtime_ns = ? WHERE path = ?",
            (size, mtime_ns, path),
        )

    def replace_file(
        self,
        path: str,
        *,
        size: int,
        mtime_ns: int,
        digest: str,
        decays: bool,
        dated_at: float,
        chunks: Iterable[Chunk],
    ) -> int:
        """``path`` with these chunks (and their FTS rows) instead of what it had; how many."""
        self.remove_file(path)
        conn = self._conn()
        conn.execute(
            "INSERT INTO memory_files (path, size, mtime_ns, hash, decays, dated_at) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (path, size, mtime_ns, digest, int(decays), dated_at),
        )
        written = 0
        for chunk in chunks:
            text_hash = hashlib.sha256(chunk.text.encode("utf-8")).hexdigest()
            cur = conn.execute(
                "INSERT INTO memory_chunks (path, line_start, line_end, hash, text) "
                "VALUES (?, ?, ?, ?, ?) RETURNING id",
                (path, chunk.line_start, chunk.line_end, text_hash, chunk.text),
            )
            chunk_id = cur.fetchone()[0]
            conn.execute(
                "INSERT INTO chunk_fts (rowid, body, ctx) VALUES (?, ?, '')",
                (chunk_id, cjk_index_text(chunk.text[:MAX_INDEX_CHARS])),
            )
            written += 1
        return written

    def ids_in(self, scope: SearchFilters) -> set[int]:
        """Every chunk id inside ``scope`` (its date range)."""
        where, params = scope_sql.chunks(scope)
        rows = self._conn().execute(
            "SELECT c.id FROM memory_chunks c JOIN memory_files mf ON mf.path = c.path "
            f"WHERE 1 {where}",
            params,
        )
        return {int(r[0]) for r in rows}

    def dating(self, ids: list[int]) -> list[tuple[int, bool, float]]:
        """(chunk id, whether its file decays, its file's date) for each known id."""
        rows = (
            self._conn()
            .execute(
                "SELECT c.id, mf.decays, mf.dated_at FROM memory_chunks c "
                "JOIN memory_files mf ON mf.path = c.path "
                "WHERE c.id IN (SELECT value FROM json_each(?))",
                (json.dumps(ids),),
            )
            .fetchall()
        )
        return [(int(r[0]), bool(r[1]), r[2]) for r in rows]

    def lines(self, ids: list[int]) -> list[tuple[int, str, int, int]]:
        """(chunk id, stored path, first line, last line) for each known id."""
        rows = (
            self._conn()
            .execute(
                "SELECT id, path, line_start, line_end FROM memory_chunks "
                "WHERE id IN (SELECT value FROM json_each(?))",
                (json.dumps(ids),),
            )
            .fetchall()
        )
        return [(int(r[0]), str(r[1]), int(r[2]), int(r[3])) for r in rows]
