"""`kenning mcp --read-only`: search and views work, every write is refused, nothing changes."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import IO, Any

import anyio
import pytest
from mcp.client.session import ClientSession

from kenning.archive.store import Archive
from kenning.home import Home
from kenning.mcp import KenningService, Peer
from kenning.mcp.client import payload, stdio_params, stdio_session
from kenning.memory.store import Target

KEYWORD = {"KENNING_EMBEDDING__PROVIDER": "none"}
TABLES = ("sessions", "messages", "recalls", "memory_chunks")


async def call(session: ClientSession, tool: str, /, **args: Any) -> dict[str, Any]:
    return payload(await session.call_tool(tool, args))


def state_of(home: Path) -> dict[str, tuple[int, int, str]]:
    """Every file in the home, git and SQLite's own included: name, size, mtime, content."""
    return {
        str(p.relative_to(home)): (
            p.stat().st_size,
            p.stat().st_mtime_ns,
            hashlib.sha256(p.read_bytes()).hexdigest(),
        )
        for p in sorted(home.rglob("*"))
        if p.is_file()
    }


def rows_of(home: Path) -> dict[str, int]:
    db = sqlite3.connect(home / "state.db")
    rows = {t: db.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in TABLES}
    db.close()
    return rows


async def read_everything(session: ClientSession) -> dict[str, dict[str, Any]]:
    """Every reading tool, resource and prompt, as a host might call them in a session."""
    calls: dict[str, tuple[str, dict[str, Any]]] = {
        "show": ("memory", {"action": "show", "target": "user"}),
        "memory_search": ("memory_search", {"query": "tabs spaces"}),
        "journal_search": ("memory_search", {"query": "staging certificate"}),
        "session_search": ("session_search", {"query": "deploy staging"}),
        "recent": ("session_search", {}),
        "memory_get": ("memory_get", {"path": "memories/USER.md"}),
        "skill_list": ("skill_list", {}),
        "skill_query": ("skill_list", {"query": "bisect"}),
        "skill_view": ("skill_view", {"name": "git-bisect"}),
    }
    results = {key: await call(session, tool, **args) for key, (tool, args) in calls.items()}
    for key, result in results.items():
        assert result["success"], (key, result)
    await session.read_resource("kenning://memory/snapshot")
    await session.read_resource("kenning://skills/index")
    await session.get_prompt("kenning-memory-guide")
    return results


def used_home(home_dir: Path) -> None:
    """A home that has been used: memory, a journal day, an indexed archive, git history."""
    home = Home.open(home_dir, overrides={"embedding": {"provider": "none"}})
    home.memory.add(Target.USER, "User prefers tabs over spaces")
    home.journal.append("Rotated the staging certificate.", source="cli")
    home.search.search("warm up the index")
    home.archive.close()


WRITER = """
import os, sys
from pathlib import Path
from kenning.archive.store import Archive, Message
archive = Archive(Path(sys.argv[1]))
sid = archive.start_session("cli", title="key rotation")
archive.append(sid, Message("user", "the quartz-lantern key was rotated today"))
print(sid, flush=True)
if sys.argv[2] == "crash":
    os._exit(0)  # no close: no checkpoint, state.db-wal and state.db-shm stay
sys.stdin.readline()
archive.close()
"""


def start_writer(home_dir: Path, mode: str) -> tuple[subprocess.Popen[str], str]:
    """Another kenning process that wrote a session SQLite holds in state.db-wal only."""
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(home_dir / "state.db"), mode],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert writer.stdout is not None
    if mode == "crash":
        sid = writer.communicate(timeout=30)[0].strip()
        assert writer.returncode == 0
    else:
        sid = writer.stdout.readline().strip()
    assert sid and (home_dir / "state.db-wal").stat().st_size > 0
    assert (home_dir / "state.db-shm").exists()
    return writer, sid


def test_read_only_serves_views_and_refuses_every_write(
    home_dir: Path, errlog: IO[str], past_session: str
) -> None:
    used_home(home_dir)
    before, rows = state_of(home_dir), rows_of(home_dir)
    assert not (home_dir / "state.db-wal").exists()  # checkpointed: the last writer closed

    async def main() -> None:
        params = stdio_params(home_dir, "--read-only", env=KEYWORD)
        async with stdio_session(params, errlog=errlog) as s:
            tools = {t.name: t for t in (await s.list_tools()).tools}
            for name in ("memory", "journal_append", "skill_manage"):
                assert (tools[name].description or "").startswith(
                    "This Kenning server runs read-only"
                )
            assert all(t.annotations and t.annotations.read_only_hint for t in tools.values())

            shown = await call(s, "memory", action="show", target="user")
            assert [e["text"] for e in shown["entries"]] == ["User prefers tabs over spaces"]
            for tool, args in [
                ("memory", {"action": "add", "target": "user", "content": "User likes tea"}),
                (
                    "memory",
                    {"target": "user", "operations": [{"action": "remove", "old_text": "tabs"}]},
                ),
                ("journal_append", {"text": "A note"}),
                ("skill_manage", {"action": "delete", "name": "git-bisect"}),
            ]:
                refused = await call(s, tool, **args)
                assert refused["error"] == "read_only" and refused["done"], refused
                assert "Nothing was written" in refused["message"]
                assert "Do not retry" in refused["next_step"]

            found = await call(s, "memory_search", query="tabs spaces")
            assert found["passages"][0]["path"] == "memories/USER.md"
            sessions = await call(s, "session_search", query="deploy staging")
            assert sessions["sessions"][0]["session_id"] == past_session
            journal = await call(s, "memory_search", query="staging certificate")
            day = journal["passages"][0]["path"]
            assert "Rotated" in (await call(s, "memory_get", path=day))["text"]
            assert (await call(s, "skill_view", name="git-bisect"))["success"]
            assert (await call(s, "skill_list", query="bisect"))["skills"]
            snapshot = await s.read_resource("kenning://memory/snapshot")
            assert "tabs over spaces" in str(snapshot.contents[0])

            await read_everything(s)

    anyio.run(main)
    # Not a byte changed, created or removed: no session recorded, no use counted, no
    # recall kept, no commit, no lock file, not even SQLite's state.db-wal / -shm.
    assert state_of(home_dir) == before
    assert rows_of(home_dir) == rows
    assert not (home_dir / "skills").exists()


@pytest.mark.parametrize("writer_state", ["connected", "crash"])
def test_read_only_reads_what_another_writer_left_in_the_wal_and_changes_nothing(
    writer_state: str, home_dir: Path, errlog: IO[str], past_session: str
) -> None:
    """Another process has written (still connected, or killed before checkpointing)."""
    used_home(home_dir)
    writer, sid = start_writer(home_dir, writer_state)
    before = state_of(home_dir)

    async def main() -> None:
        params = stdio_params(home_dir, "--read-only", env=KEYWORD)
        async with stdio_session(params, errlog=errlog) as s:
            results = await read_everything(s)
            assert results["recent"]["sessions"][0]["session_id"] == sid  # the latest data
            opened = await call(s, "session_search", session_id=sid)
            assert "quartz-lantern" in json.dumps(opened), opened

    try:
        anyio.run(main)
        assert state_of(home_dir) == before
    finally:
        if writer.poll() is None:
            writer.communicate("done\n", timeout=30)
    errlog.seek(0)
    assert "Traceback" not in errlog.read()


@pytest.mark.parametrize("writer_state", ["connected", "crash"])
def test_read_only_search_finds_messages_archived_since_the_last_index_update(
    writer_state: str, home_dir: Path, errlog: IO[str], past_session: str
) -> None:
    """The read-only server cannot add them to the search index: it still finds them."""
    used_home(home_dir)  # indexed up to here by a writable search
    writer: subprocess.Popen[str] | None = None

    async def main() -> None:
        nonlocal writer
        params = stdio_params(home_dir, "--read-only", env=KEYWORD)
        async with stdio_session(params, errlog=errlog) as s:
            none_yet = await call(s, "session_search", query="quartz-lantern rotated")
            assert none_yet["success"] and none_yet["sessions"] == []
            writer, sid = start_writer(home_dir, writer_state)  # another process archives
            before = state_of(home_dir)
            found = await call(s, "session_search", query="quartz-lantern rotated")
            assert found["success"] and found["sessions"][0]["session_id"] == sid, found
            assert "quartz-lantern" in json.dumps(found["sessions"][0])
            # Older messages are still found through the index, as before.
            staging = await call(s, "session_search", query="deploy staging")
            assert staging["sessions"][0]["session_id"] == past_session
            assert state_of(home_dir) == before  # and the server wrote nothing

    try:
        anyio.run(main)
    finally:
        if writer is not None and writer.poll() is None:
            writer.communicate("done\n", timeout=30)
    errlog.seek(0)
    assert "Traceback" not in errlog.read()


def test_a_wal_without_its_shm_is_refused_with_what_to_do(
    home_dir: Path, past_session: str
) -> None:
    """Its transactions cannot be read without creating state.db-shm: say so, change nothing."""
    used_home(home_dir)
    start_writer(home_dir, "crash")
    (home_dir / "state.db-shm").unlink()
    before = state_of(home_dir)
    service = KenningService(
        Home.open(home_dir, overrides={"embedding": {"provider": "none"}}), read_only=True
    )
    refused = service.call("session_search", {}, Peer()).result
    assert not refused["success"] and refused["error"] == "archive_unavailable"
    assert "state.db-wal" in refused["message"] and "kenning sessions list" in refused["message"]
    assert "memory_get" in refused["next_step"]
    service.close()
    assert state_of(home_dir) == before


def test_a_read_torn_by_a_checkpoint_is_read_again(
    home_dir: Path, past_session: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No state.db-wal: state.db is read immutable, and a checkpoint meanwhile is noticed."""
    used_home(home_dir)
    service = KenningService(
        Home.open(home_dir, overrides={"embedding": {"provider": "none"}}), read_only=True
    )
    tool = service._tools["session_search"]
    runs: list[int] = []

    async def read_while_another_process_writes(args: dict[str, Any], ctx: Any) -> Any:
        result = await tool.handler(args, ctx)
        runs.append(len(result["sessions"]))
        if len(runs) == 1:  # a writer starts, writes, and checkpoints on closing
            writer = Archive(home_dir / "state.db")
            writer.start_session("cli", title="written meanwhile")
            writer.close()
        return result

    patched = dataclasses.replace(tool, handler=read_while_another_process_writes)
    monkeypatch.setitem(service._tools, "session_search", patched)
    result = service.call("session_search", {}, Peer()).result
    assert runs == [1, 2] and len(result["sessions"]) == 2  # read again, from the new file
    assert len(service.call("session_search", {}, Peer()).result["sessions"]) == 2
    assert runs == [1, 2, 2]  # an undisturbed read is not repeated
    service.close()


def test_read_only_on_a_fresh_home_creates_nothing(home_dir: Path, errlog: IO[str]) -> None:
    async def main() -> None:
        params = stdio_params(home_dir, "--read-only", env=KEYWORD)
        async with stdio_session(params, errlog=errlog) as s:
            empty = await call(s, "session_search", query="anything")
            assert empty["success"] and empty["sessions"] == []
            assert "no archive" in empty["message"] and empty["next_step"]
            assert (await call(s, "memory_search", query="anything"))["passages"] == []
            assert (await call(s, "memory", action="show", target="memory"))["entries"] == []

    anyio.run(main)
    assert not home_dir.exists() or not any(home_dir.iterdir())
