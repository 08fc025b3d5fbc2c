"""Schema changes as ordered, recorded, append-only migrations.

Each ``m###_name`` function runs once, inside one transaction together with
the row that records it in ``_migrations``; a crash mid-migration leaves the
database at the previous version. Never edit a migration that has shipped:
add a new one.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from kenning.storage.base import StorageError

Migration = Callable[[sqlite3.Connection], None]

# The embedding cache's one definition: in ``state.db`` (m002, exactly as
# shipped) and in the benchmarks' standalone cache file (``sqlite.cache``).
EMBED_CACHE_DDL = """CREATE TABLE embed_cache (
               identity TEXT NOT NULL,
               kind     TEXT NOT NULL,
               hash     BLOB NOT NULL,
               v        BLOB NOT NULL,
               PRIMARY KEY (identity, kind, hash)
           ) WITHOUT ROWID"""


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


def m002_search_index(conn: sqlite3.Connection) -> None:
    """Full-text and vector index over messages, the embedding cache, recalls.

    Triggers keep the index in step with ``messages`` without any Python
    function registered on the connection (so every writer, even a bare
    sqlite3 shell, stays valid): new and edited messages are queued, and the
    search engine turns queued ids into FTS rows (with CJK bigrams, which SQL
    cannot compute) and vectors before it searches. Deletions and edits drop
    stale index rows right away. System messages (the prompt Kenning built)
    are not indexed. Flags (``active``/``compacted``) do not touch the index:
    compacted messages stay searchable.
    """
    conn.execute(
        "CREATE VIRTUAL TABLE message_fts USING fts5(body, ctx, tokenize='porter unicode61')"
    )
    conn.execute("CREATE TABLE search_fts_queue (message_id INTEGER PRIMARY KEY)")
    conn.execute("CREATE TABLE search_embed_queue (message_id INTEGER PRIMARY KEY)")
    conn.execute(
        """CREATE TABLE message_vectors (
               n          INTEGER PRIMARY KEY,      -- load order: engines read only new rows
               message_id INTEGER NOT NULL UNIQUE,
               v          BLOB NOT NULL             -- float32, L2-normalised
           )"""
    )
    conn.execute("CREATE TABLE search_state (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    conn.execute("INSERT INTO search_state VALUES ('vector_deletes', '0')")
    conn.execute(EMBED_CACHE_DDL)
    conn.execute(
        """CREATE TABLE recalls (
               id      INTEGER PRIMARY KEY,
               query   TEXT NOT NULL,
               at      REAL NOT NULL,
               mode    TEXT NOT NULL,
               filters TEXT
           )"""
    )
    conn.execute(
        """CREATE TABLE recall_hits (
               recall_id INTEGER NOT NULL REFERENCES recalls(id) ON DELETE CASCADE,
               rank      INTEGER NOT NULL,
               kind      TEXT NOT NULL,
               item_id   INTEGER NOT NULL,
               score     REAL NOT NULL,
               PRIMARY KEY (recall_id, rank)
           )"""
    )
    conn.execute("CREATE INDEX recall_hits_item ON recall_hits(kind, item_id)")
    conn.execute("CREATE INDEX recalls_at ON recalls(at)")
    conn.execute(
        """CREATE TRIGGER messages_search_ai AFTER INSERT ON messages
           WHEN NEW.role != 'system' BEGIN
               INSERT OR IGNORE INTO search_fts_queue VALUES (NEW.id);
               INSERT OR IGNORE INTO search_embed_queue VALUES (NEW.id);
           END"""
    )
    # An edit re-indexes the message and the next one (whose context it is).
    conn.execute(
        """CREATE TRIGGER messages_search_au AFTER UPDATE OF content, speaker, role ON messages
           BEGIN
               DELETE FROM message_fts WHERE rowid = OLD.id;
               DELETE FROM message_vectors WHERE message_id = OLD.id;
               INSERT OR IGNORE INTO search_fts_queue
                   SELECT id FROM messages WHERE role != 'system' AND session_id = NEW.session_id
                   AND seq IN (NEW.seq, NEW.seq + 1);
               INSERT OR IGNORE INTO search_embed_queue
                   SELECT id FROM messages WHERE role != 'system' AND session_id = NEW.session_id
                   AND seq IN (NEW.seq, NEW.seq + 1);
           END"""
    )
    conn.execute(
        """CREATE TRIGGER messages_search_ad AFTER DELETE ON messages BEGIN
               DELETE FROM message_fts WHERE rowid = OLD.id;
               DELETE FROM message_vectors WHERE message_id = OLD.id;
               DELETE FROM search_fts_queue WHERE message_id = OLD.id;
               DELETE FROM search_embed_queue WHERE message_id = OLD.id;
           END"""
    )
    # Engines keep vectors in memory and reload only new rows; a deletion
    # bumps this counter so they know to reload everything.
    conn.execute(
        """CREATE TRIGGER message_vectors_ad AFTER DELETE ON message_vectors BEGIN
               UPDATE search_state SET value = CAST(value AS INTEGER) + 1
               WHERE key = 'vector_deletes';
           END"""
    )
    conn.execute(
        "INSERT INTO search_fts_queue SELECT id FROM messages WHERE role != 'system' ORDER BY id"
    )
    conn.execute(
        "INSERT INTO search_embed_queue SELECT id FROM messages WHERE role != 'system' ORDER BY id"
    )


def m003_memory_chunks(conn: sqlite3.Connection) -> None:
    """The chunk index over memory files (MEMORY.md, USER.md, journal, extra paths).

    ``memory_files`` remembers each file's size, mtime and content hash so a
    sync re-chunks only files that changed (hand edits included); a file's
    chunks, their FTS rows and vectors go together.
    """
    conn.execute(
        """CREATE TABLE memory_files (
               path     TEXT PRIMARY KEY,    -- relative to the home when inside it
               size     INTEGER NOT NULL,
               mtime_ns INTEGER NOT NULL,
               hash     TEXT NOT NULL,       -- sha256 of the content
               decays   INTEGER NOT NULL,    -- 0 for MEMORY.md / USER.md
               dated_at REAL NOT NULL        -- journal date or file mtime (recency)
           )"""
    )
    conn.execute(
        """CREATE TABLE memory_chunks (
               id         INTEGER PRIMARY KEY,
               path       TEXT NOT NULL REFERENCES memory_files(path) ON DELETE CASCADE,
               line_start INTEGER NOT NULL,  -- 1-based, inclusive
               line_end   INTEGER NOT NULL,
               hash       TEXT NOT NULL,
               text       TEXT NOT NULL
           )"""
    )
    conn.execute("CREATE INDEX memory_chunks_path ON memory_chunks(path)")
    conn.execute(
        "CREATE VIRTUAL TABLE chunk_fts USING fts5(body, ctx, tokenize='porter unicode61')"
    )
    conn.execute(
        """CREATE TABLE chunk_vectors (
               n        INTEGER PRIMARY KEY,
               chunk_id INTEGER NOT NULL UNIQUE,
               v        BLOB NOT NULL
           )"""
    )
    conn.execute(
        """CREATE TRIGGER memory_chunks_ad AFTER DELETE ON memory_chunks BEGIN
               DELETE FROM chunk_fts WHERE rowid = OLD.id;
               DELETE FROM chunk_vectors WHERE chunk_id = OLD.id;
           END"""
    )
    conn.execute("INSERT INTO search_state VALUES ('chunk_vector_deletes', '0')")
    conn.execute(
        """CREATE TRIGGER chunk_vectors_ad AFTER DELETE ON chunk_vectors BEGIN
               UPDATE search_state SET value = CAST(value AS INTEGER) + 1
               WHERE key = 'chunk_vector_deletes';
           END"""
    )


MIGRATIONS: list[tuple[str, Migration]] = [
    ("m001_sessions_and_messages", m001_sessions_and_messages),
    ("m002_search_index", m002_search_index),
    ("m003_memory_chunks", m003_memory_chunks),
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
        raise StorageError(
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
