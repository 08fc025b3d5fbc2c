"""The archive's storage: WAL, migrations, sessions and messages that never collide."""

from __future__ import annotations

import multiprocessing as mp
import sqlite3
from pathlib import Path

import pytest

from kenning.archive.store import Archive, ArchiveError, Message
from kenning.storage import StorageConflict
from kenning.storage.sqlite import migrations
from kenning.storage.sqlite.connection import connect


def test_database_is_wal_with_recorded_migrations(tmp_path: Path) -> None:
    conn = connect(tmp_path / "state.db")
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    names = [r[0] for r in conn.execute("SELECT name FROM _migrations ORDER BY name")]
    assert names == [name for name, _ in migrations.MIGRATIONS]
    assert migrations.apply(conn) == []  # a second run does nothing


def test_newer_schema_is_refused(tmp_path: Path) -> None:
    conn = connect(tmp_path / "state.db")
    conn.execute("INSERT INTO _migrations VALUES ('m999_from_the_future', 0)")
    conn.close()
    with pytest.raises(RuntimeError, match="newer Kenning"):
        connect(tmp_path / "state.db")


def test_failed_migration_leaves_previous_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(conn: sqlite3.Connection) -> None:
        conn.execute("CREATE TABLE half_done (x)")
        raise RuntimeError("crash in the middle")

    monkeypatch.setattr(migrations, "MIGRATIONS", [*migrations.MIGRATIONS, ("m998_broken", broken)])
    with pytest.raises(RuntimeError, match="crash"):
        connect(tmp_path / "state.db")
    conn = sqlite3.connect(tmp_path / "state.db")
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert "half_done" not in tables and "sessions" in tables


def test_messages_get_positions_and_round_trip(tmp_path: Path) -> None:
    archive = Archive(tmp_path / "state.db")
    sid = archive.start_session("cli", title="first", workspace="/repo", user_id="ada")
    stored = archive.append(sid, Message("user", "hello"))
    archive.append(
        sid,
        Message(
            "assistant",
            "",
            tool_calls=[{"id": "c1", "name": "read_file", "arguments": {"path": "a.py"}}],
        ),
    )
    archive.append(sid, Message("tool", "print(1)", tool_name="read_file", tool_call_id="c1"))
    assert stored.seq == 1 and stored.id is not None
    got = archive.messages(sid)
    assert [m.seq for m in got] == [1, 2, 3]
    assert got[1].tool_calls == [{"id": "c1", "name": "read_file", "arguments": {"path": "a.py"}}]
    assert got[2].tool_call_id == "c1"
    session = archive.session(sid)
    assert session is not None and session.message_count == 3 and session.user_id == "ada"


def test_compacted_messages_are_hidden_not_deleted(tmp_path: Path) -> None:
    archive = Archive(tmp_path / "state.db")
    sid = archive.start_session("cli")
    for i in range(5):
        archive.append(sid, Message("user", f"m{i}"))
    assert archive.mark_compacted(sid, [1, 2, 3]) == 3
    live = archive.messages(sid, include_inactive=False)
    assert [m.content for m in live] == ["m3", "m4"]
    everything = archive.messages(sid)
    assert len(everything) == 5 and everything[0].compacted and not everything[0].active


def test_unknown_source_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ArchiveError, match="unknown session source"):
        Archive(tmp_path / "state.db").start_session("telepathy")  # type: ignore[arg-type]


def test_append_many_is_all_or_nothing(tmp_path: Path) -> None:
    archive = Archive(tmp_path / "state.db")
    sid = archive.start_session("import")
    with pytest.raises(StorageConflict):
        archive.append_many(sid, [Message("user", "ok"), Message("wizard", "bad")])  # type: ignore[arg-type]
    assert archive.messages(sid) == []


def _writer(db: str, worker: int, sessions: int, per_session: int) -> None:
    archive = Archive(Path(db))
    shared = "shared-session"
    for s in range(sessions):
        sid = archive.start_session("cli", title=f"w{worker}s{s}")
        for i in range(per_session):
            archive.append(sid, Message("user", f"w{worker} s{s} m{i}"))
            archive.append(shared, Message("assistant", f"w{worker} shared {s}.{i}"))


def test_two_processes_writing_at_once_lose_nothing(tmp_path: Path) -> None:
    db = tmp_path / "state.db"
    # The parent's connection is still open when the writers fork (pytest keeps
    # the temporary alive): SQLite connections must not be used or closed
    # across fork, and Kenning's archive must cope with inheriting one.
    Archive(db).start_session("cli", session_id="shared-session")
    ctx = mp.get_context("fork")
    procs = [ctx.Process(target=_writer, args=(str(db), w, 10, 20)) for w in range(2)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
        assert p.exitcode == 0
    archive = Archive(db)
    assert len(archive.sessions(limit=100)) == 21
    shared = archive.messages("shared-session")
    assert len(shared) == 400
    assert [m.seq for m in shared] == list(range(1, 401))
    total = archive.storage.connection().execute("SELECT count(*) FROM messages").fetchone()[0]
    assert total == 800


def test_a_clashing_generated_session_id_is_drawn_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from kenning.archive import store as store_mod

    archive = Archive(tmp_path / "state.db")
    ids = iter(["20261130-000000-aaaaaa", "20261130-000000-aaaaaa", "20261130-000000-bbbbbb"])
    monkeypatch.setattr(store_mod, "new_session_id", lambda now=None: next(ids))
    first = archive.start_session("import")
    second = archive.start_session("import")
    assert (first, second) == ("20261130-000000-aaaaaa", "20261130-000000-bbbbbb")
    with pytest.raises(StorageConflict):  # a caller's own id is never replaced
        archive.start_session("cli", session_id=first)
