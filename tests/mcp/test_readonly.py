"""`kenning mcp --read-only`: search and views work, every write is refused, nothing changes."""

from __future__ import annotations

import sqlite3
import subprocess
from pathlib import Path
from typing import IO, Any

import anyio
from mcp.client.session import ClientSession

from kenning.home import Home
from kenning.mcp.client import payload, stdio_params, stdio_session
from kenning.memory.store import Target

KEYWORD = {"KENNING_EMBEDDING__PROVIDER": "none"}
TABLES = ("sessions", "messages", "recalls", "memory_chunks")


async def call(session: ClientSession, tool: str, /, **args: Any) -> dict[str, Any]:
    return payload(await session.call_tool(tool, args))


def state_of(home: Path) -> dict[str, Any]:
    """Everything a write could change: files, database rows, git history."""
    # SQLite makes the WAL files for any reader; the database is compared by its rows.
    skipped = ("state.db", "state.db-wal", "state.db-shm")
    files = {
        str(p.relative_to(home)): p.read_bytes()
        for p in sorted(home.rglob("*"))
        if p.is_file() and ".git" not in p.parts and p.name not in skipped
    }
    db = sqlite3.connect(home / "state.db")
    rows = {t: db.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in TABLES}
    db.close()
    head = subprocess.run(
        ["git", "-C", str(home), "rev-parse", "HEAD"], capture_output=True, text=True
    ).stdout
    return {"files": files, "rows": rows, "head": head}


def test_read_only_serves_views_and_refuses_every_write(
    home_dir: Path, errlog: IO[str], past_session: str
) -> None:
    home = Home.open(home_dir, overrides={"embedding": {"provider": "none"}})
    home.memory.add(Target.USER, "User prefers tabs over spaces")
    home.journal.append("Rotated the staging certificate.", source="cli")
    home.search.search("warm up the index")  # a home that has been used: indexed
    home.archive.close()
    before = state_of(home_dir)

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

    anyio.run(main)
    assert state_of(home_dir) == before  # no session recorded, no use counted, no recall kept
    assert not (home_dir / "skills").exists()


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
