"""Looking at a ``state.db`` without changing it: what ``kenning doctor`` reports on.

The database is opened read-only and never migrated. If no ``-wal`` file
exists, no connection is open (SQLite removes it when the last one closes),
so the file is opened ``immutable``: that creates no ``-wal``/``-shm`` files,
and nothing is written. Otherwise a normal read-only connection shares the
live WAL.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from kenning.storage.base import StorageError
from kenning.storage.identity import IndexIdentity
from kenning.storage.sqlite import migrations

HEADER = b"SQLite format 3\x00"


@dataclass(frozen=True)
class Inspection:
    """What a sound-looking database holds; counts are None where the tables are missing."""

    problems: list[str]  # from the integrity check; ["ok"] when sound
    migrations_done: set[str]
    migrations_known: list[str]
    messages: int
    fts_missing: int | None = None  # searchable messages with no row and not queued
    fts_orphans: int | None = None  # rows of messages that no longer exist
    fts_queued: int | None = None
    embed_queued: int | None = None
    identity: IndexIdentity | None = None


def is_wal_file(header: bytes) -> bool:
    """Bytes 18-19 of the header say the file's journal mode (2 = WAL); a PRAGMA
    would report the mode of an immutable connection instead."""
    return header[18:20] == b"\x02\x02"


def _open_readonly(db: Path) -> sqlite3.Connection:
    live = db.with_name(db.name + "-wal").exists()
    flag = "mode=ro" if live else "immutable=1"
    conn = sqlite3.connect(f"file:{quote(str(db))}?{flag}", uri=True)
    conn.execute("PRAGMA query_only = ON")
    return conn


def inspect(db: Path) -> Inspection:
    """The facts about ``db``; ``StorageError`` (saying why) if it cannot be read."""
    try:
        conn = _open_readonly(db)
    except sqlite3.Error as exc:
        raise StorageError(str(exc)) from exc
    try:
        return _inspect(conn)
    except sqlite3.DatabaseError as exc:
        raise StorageError(str(exc)) from exc
    finally:
        conn.close()


def _count(conn: sqlite3.Connection, sql: str) -> int:
    return int(conn.execute(sql).fetchone()[0])


def _inspect(conn: sqlite3.Connection) -> Inspection:
    problems = [str(row[0]) for row in conn.execute("PRAGMA quick_check").fetchall()]
    known = [name for name, _ in migrations.MIGRATIONS]
    if problems != ["ok"]:
        return Inspection(problems, set(), known, 0)
    tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
    done = (
        {str(row[0]) for row in conn.execute("SELECT name FROM _migrations")}
        if "_migrations" in tables
        else set()
    )
    if done - set(known):
        return Inspection(problems, done, known, 0)
    messages = _count(conn, "SELECT count(*) FROM messages") if "messages" in tables else 0
    facts = Inspection(problems, done, known, messages)
    if "message_fts" in tables and "search_fts_queue" in tables:
        facts = _with_fts(conn, facts)
    if "search_state" in tables and "search_embed_queue" in tables:
        row = conn.execute("SELECT value FROM search_state WHERE key = 'identity'").fetchone()
        facts = Inspection(
            **{
                **facts.__dict__,
                "embed_queued": _count(conn, "SELECT count(*) FROM search_embed_queue"),
                "identity": IndexIdentity(**json.loads(row[0])) if row and row[0] else None,
            }
        )
    return facts


def _with_fts(conn: sqlite3.Connection, facts: Inspection) -> Inspection:
    missing = _count(
        conn,
        "SELECT count(*) FROM messages m WHERE m.role != 'system' "
        # Rows without text or calls are never indexed (storage.identity.indexable).
        "AND (trim(coalesce(m.content, '')) != '' OR coalesce(m.tool_calls, '') != '') "
        "AND NOT EXISTS (SELECT 1 FROM message_fts f WHERE f.rowid = m.id) "
        "AND NOT EXISTS (SELECT 1 FROM search_fts_queue q WHERE q.message_id = m.id)",
    )
    orphans = _count(
        conn,
        "SELECT count(*) FROM message_fts f "
        "WHERE NOT EXISTS (SELECT 1 FROM messages m WHERE m.id = f.rowid)",
    )
    queued = _count(conn, "SELECT count(*) FROM search_fts_queue")
    return Inspection(
        **{**facts.__dict__, "fts_missing": missing, "fts_orphans": orphans, "fts_queued": queued}
    )


def _pragma(db: Path, sql: str) -> str:
    try:
        conn = sqlite3.connect(db, timeout=30)
        try:
            return str(conn.execute(sql).fetchone()[0]).lower()
        finally:
            conn.close()
    except sqlite3.Error as exc:
        raise StorageError(f"{db}: {exc}") from exc


def journal_mode(db: Path) -> str:
    return _pragma(db, "PRAGMA journal_mode")


def switch_to_wal(db: Path) -> bool:
    """Put a sound database in WAL mode; whether it is in WAL mode now."""
    return _pragma(db, "PRAGMA journal_mode = WAL") == "wal"
