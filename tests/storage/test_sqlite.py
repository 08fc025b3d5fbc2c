"""What only the SQLite backend promises: WAL, migrations of old files, crash safety."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from kenning.storage import open_storage
from kenning.storage.query import SearchFilters
from kenning.storage.records import Message
from kenning.storage.sqlite import SqliteStorage, migrations


def test_wal_mode_is_really_on(tmp_path: Path) -> None:
    db = tmp_path / "state.db"
    storage = open_storage(db)
    storage.sessions.insert("s1", "cli", started_at=1.0)
    # the file's own header says WAL (bytes 18-19 = 2), and a second connection sees it
    assert db.read_bytes()[18:20] == b"\x02\x02"
    other = sqlite3.connect(db)
    assert other.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    other.close()
    assert db.with_name("state.db-wal").exists()  # writes go to the log first
    storage.close()


def test_an_old_database_file_is_migrated_and_its_messages_indexed(tmp_path: Path) -> None:
    db = tmp_path / "state.db"
    old = sqlite3.connect(db, isolation_level=None)  # as the first release left it
    old.execute("CREATE TABLE _migrations (name TEXT PRIMARY KEY, applied_at REAL NOT NULL)")
    migrations.m001_sessions_and_messages(old)
    old.execute("INSERT INTO _migrations VALUES ('m001_sessions_and_messages', 0)")
    old.execute("INSERT INTO sessions (id, source, started_at) VALUES ('old', 'cli', 1.0)")
    old.execute(
        "INSERT INTO messages (session_id, seq, role, content, created_at) "
        "VALUES ('old', 1, 'user', 'the staging database moved to db-7', 2.0)"
    )
    old.close()
    storage = open_storage(db)
    assert [m.content for m in storage.sessions.messages("old")] == [
        "the staging database moved to db-7"
    ]
    assert isinstance(storage, SqliteStorage)
    done = {r[0] for r in storage.connection().execute("SELECT name FROM _migrations")}
    assert done == {name for name, _ in migrations.MIGRATIONS}
    assert storage.index.sync() == 1  # old messages were queued by the migration
    assert [i for i, _ in storage.index.match_messages(["staging"], SearchFilters(), 5)] == [1]
    storage.close()


CRASHING_WRITER = """
import os, sys
from pathlib import Path

import pytest
from kenning.storage import open_storage
from kenning.storage.records import Message

storage = open_storage(Path(sys.argv[1]))
storage.sessions.insert("s1", "cli", started_at=1.0)
storage.sessions.append("s1", Message("user", "committed before the crash"))
with storage.transaction():
    for i in range(50):
        storage.sessions.append("s1", Message("user", f"half-written {i}"))
    os._exit(9)  # the process dies mid-transaction: no commit, no rollback, no close
"""


def test_a_crash_mid_write_leaves_the_database_readable(tmp_path: Path) -> None:
    db = tmp_path / "state.db"
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(CRASHING_WRITER), str(db)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 9, done.stderr
    storage = open_storage(db)
    assert isinstance(storage, SqliteStorage)
    assert storage.connection().execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert [m.content for m in storage.sessions.messages("s1")] == ["committed before the crash"]
    stored = storage.sessions.append("s1", Message("user", "and writing goes on"))
    assert stored.seq == 2
    storage.close()


def _table_sql(db: Path, table: str) -> str:
    conn = sqlite3.connect(db)
    try:
        row = conn.execute("SELECT sql FROM sqlite_master WHERE name = ?", (table,)).fetchone()
        return str(row[0])
    finally:
        conn.close()


def test_the_embedding_cache_table_has_one_definition(tmp_path: Path) -> None:
    """``state.db``'s cache and the benchmarks' standalone cache file are the same table."""
    from kenning.storage import open_embedding_cache

    home = open_storage(tmp_path / "state.db")
    home.sessions.count_messages()  # opens and migrates
    home.close()
    alone = open_embedding_cache(tmp_path / "cache.sqlite")
    alone.put_many("fake@1", "p", [])
    in_state = _table_sql(tmp_path / "state.db", "embed_cache")
    standalone = _table_sql(tmp_path / "cache.sqlite", "embed_cache")
    assert standalone.replace("IF NOT EXISTS ", "") == in_state


def test_a_refused_write_is_a_storage_error_not_a_driver_one(tmp_path: Path) -> None:
    """Callers handle ``StorageError``s without knowing the backend's driver."""
    from kenning.storage import StorageConflict, StorageUnavailable

    db = tmp_path / "state.db"
    writer = open_storage(db)
    writer.sessions.insert("s1", "cli", started_at=1.0)
    with pytest.raises(StorageConflict):
        writer.sessions.insert("s1", "cli", started_at=1.0)
    writer.close()
    reader = open_storage(db, read_only=True)
    assert [s.id for s in reader.sessions.recent()] == ["s1"]
    with pytest.raises(StorageUnavailable, match="readonly"):
        reader.sessions.append("s1", Message("user", "refused"))
    assert reader.settle()
