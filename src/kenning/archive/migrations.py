"""Schema changes as ordered, recorded, append-only migrations.

Each ``m###_name`` function runs once, inside one transaction together with
the row that records it in ``_migrations``; a crash mid-migration leaves the
database at the previous version. Never edit a migration that has shipped:
add a new one.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

Migration = Callable[[sqlite3.Connection], None]


def m001_sessions_and_messages(conn: sqlite3.Connection) -> None:
    conn.execute(
        """
        CREATE TABLE sessions (
            id            TEXT PRIMARY KEY,
            source        TEXT NOT NULL CHECK (source IN
                            ('cli','run','mcp','cron','subagent','import','review')),
            parent_id     TEXT REFERENCES sessions(id),
            title         TEXT,
            workspace     TEXT,
            user_id       TEXT,
            started_at    REAL NOT NULL,
            ended_at      REAL,
            end_reason    TEXT,
            model         TEXT,
            input_tokens  INTEGER NOT NULL DEFAULT 0,
            output_tokens INTEGER NOT NULL DEFAULT 0,
            import_key    TEXT UNIQUE,  -- makes re-importing the same source a no-op
            meta          TEXT          -- JSON for importer/provider details
        )
        """
    )
    conn.execute("CREATE INDEX sessions_started ON sessions(started_at)")
    conn.execute("CREATE INDEX sessions_parent ON sessions(parent_id)")
    conn.execute(
        """
        CREATE TABLE messages (
            id            INTEGER PRIMARY KEY,
            session_id    TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
            seq           INTEGER NOT NULL,
            role          TEXT NOT NULL CHECK (role IN ('system','user','assistant','tool')),
            speaker       TEXT,          -- a display name when the role is not enough
            content       TEXT NOT NULL DEFAULT '',
            tool_calls    TEXT,          -- JSON list of calls the assistant made
            tool_name     TEXT,
            tool_call_id  TEXT,
            created_at    REAL NOT NULL,
            input_tokens  INTEGER,
            output_tokens INTEGER,
            active        INTEGER NOT NULL DEFAULT 1,  -- 0 once hidden from the live context
            compacted     INTEGER NOT NULL DEFAULT 0,  -- 1 once replaced by a summary
            meta          TEXT,          -- JSON: importer ids (e.g. LoCoMo dia_id), extras
            UNIQUE (session_id, seq)
        )
        """
    )
    conn.execute("CREATE INDEX messages_created ON messages(created_at)")


MIGRATIONS: list[tuple[str, Migration]] = [
    ("m001_sessions_and_messages", m001_sessions_and_messages),
]


def apply(conn: sqlite3.Connection) -> list[str]:
    """Run the migrations this database has not seen yet; returns their names."""
    conn.execute(
        "CREATE TABLE IF NOT EXISTS _migrations (name TEXT PRIMARY KEY, applied_at REAL NOT NULL)"
    )
    done = {row[0] for row in conn.execute("SELECT name FROM _migrations")}
    known = {name for name, _ in MIGRATIONS}
    unknown = done - known
    if unknown:
        raise RuntimeError(
            f"state.db was migrated by a newer Kenning ({', '.join(sorted(unknown))}); "
            "upgrade Kenning to use it"
        )
    ran = []
    for name, migration in MIGRATIONS:
        if name in done:
            continue
        # BEGIN IMMEDIATE takes the write lock first, so two processes opening
        # a fresh database cannot both run the same migration.
        conn.execute("BEGIN IMMEDIATE")
        try:
            if conn.execute("SELECT 1 FROM _migrations WHERE name = ?", (name,)).fetchone():
                conn.execute("ROLLBACK")
                continue
            migration(conn)
            conn.execute(
                "INSERT INTO _migrations (name, applied_at) VALUES (?, julianday('now'))", (name,)
            )
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        ran.append(name)
    return ran
