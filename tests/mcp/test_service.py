"""The server's core in-process: containment, turns, recording, the blocks it serves."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from datetime import timedelta
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client

from kenning import clock
from kenning.archive.store import Archive
from kenning.clock import FrozenClock
from kenning.home import Home
from kenning.mcp import KenningService, Peer
from kenning.mcp.client import payload
from kenning.mcp.server import build_server
from kenning.mcp.service import TURN_GAP_S
from kenning.skills.agent_tools import skill_registry_tools
from kenning.storage import StorageUnavailable
from kenning.tools.base import Tool, ToolContext
from kenning.tools.registry import default_registry

PEER = Peer(client="test-host", version="1.0")


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def service_for(home_dir: Path, **overrides: Any) -> KenningService:
    settings = {"embedding": {"provider": "none"}, **overrides}
    return KenningService(Home.open(home_dir, overrides=settings), clock=Clock())


def test_the_server_serves_the_agents_own_tools(home_dir: Path) -> None:
    """One Tool abstraction: the schema, the argument check and the result are the agent's."""
    service = service_for(home_dir)
    home = Home.open(home_dir, overrides={"embedding": {"provider": "none"}})
    registry = default_registry(home)
    agent = {n: t for n in registry.names() if (t := registry.get(n)) is not None}
    agent.update({t.name: t for t in skill_registry_tools(home)})
    offered = {tool.name: tool for _, tool in service.tools()}
    assert set(offered) == {
        "memory", "memory_search", "memory_get", "session_search",
        "journal_append", "skill_list", "skill_view", "skill_manage",
    }  # fmt: skip
    for name in ("memory", "memory_search", "memory_get", "session_search", "skill_view"):
        assert (
            isinstance(offered[name], Tool) and offered[name].parameters == agent[name].parameters
        )
    bad = {"query": "pnpm", "limit": "many"}
    _, refused = agent["memory_search"].check(bad)
    assert refused is not None and refused.data is not None
    assert service.call("memory_search", bad, PEER).result == dict(refused.data)
    # A result is the agent tool's ToolResult, sent as its JSON object.
    show = {"action": "show", "target": "user"}
    own = asyncio.run(agent["memory"].run(show, ToolContext(home)))
    assert service.call("memory", show, PEER).result == own.data
    service.close()


def test_an_exception_inside_a_tool_becomes_a_result_and_the_server_goes_on(
    home_dir: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    service = service_for(home_dir)

    async def broken(args: dict[str, Any], ctx: Any) -> dict[str, Any]:
        raise RuntimeError("disk on fire")

    tool = dataclasses.replace(service._tools["memory_search"], handler=broken)
    monkeypatch.setitem(service._tools, "memory_search", tool)
    with caplog.at_level(logging.ERROR):
        failed = service.call("memory_search", {"query": "x"}, PEER)
    assert not failed.ok and failed.result["error"] == "internal"
    assert "disk on fire" in failed.result["message"] and failed.result["next_step"]
    assert "memory_search failed" in caplog.text
    assert service.call("memory", {"action": "show", "target": "user"}, PEER).ok
    service.close()


def test_a_pause_starts_a_new_turn_for_the_retry_breaker(home_dir: Path) -> None:
    service = service_for(home_dir)
    clock = service.clock
    assert isinstance(clock, Clock)
    bad = {"action": "remove", "target": "user", "old_text": "nothing like this"}
    results = [service.call("memory", bad, PEER).result for _ in range(3)]
    assert "Stop retrying" in results[2]["next_step"] and "Stop" not in results[1]["next_step"]
    clock.now += TURN_GAP_S + 1
    fresh = service.call("memory", bad, PEER).result
    assert fresh["error"] == "no_match" and "Stop retrying" not in fresh["next_step"]
    service.close()


def test_reads_record_nothing_and_writes_go_to_one_session_per_client_and_day(
    home_dir: Path, frozen: FrozenClock
) -> None:
    reader = service_for(home_dir)
    reader.call("memory_search", {"query": "staging database port"}, PEER)
    reader.call("memory", {"action": "show"}, PEER)
    reader.call("skill_view", {"name": "git-bisect"}, PEER)
    reader.close("client disconnected")
    archive = Archive(home_dir / "state.db")
    before = archive.sessions(sources=["mcp"])
    assert before == []  # a connection that only reads leaves no session

    fact = "The staging database listens on port 5433"
    for _ in range(2):  # two server processes of one host, the same day
        writer = service_for(home_dir)
        writer.call("memory", {"action": "add", "target": "memory", "content": fact}, PEER)
        writer.call("memory_search", {"query": "staging database port"}, PEER)
        writer.close("client disconnected")
    other = service_for(home_dir)
    other.call("journal_append", {"text": "Tried the staging port"}, Peer("", "other-host", "2"))
    other.close()
    frozen.advance(days=1)
    tomorrow = service_for(home_dir)
    tomorrow.call("journal_append", {"text": "Next day"}, PEER)
    tomorrow.close()

    sessions = archive.sessions(sources=["mcp"])
    titles = sorted(s.title or "" for s in sessions)
    today = clock.today() - timedelta(days=1)
    assert titles == sorted(
        [
            f"MCP · test-host · {today.isoformat()}",
            f"MCP · other-host · {today.isoformat()}",
            f"MCP · test-host · {clock.today().isoformat()}",
        ]
    )
    (first,) = [s for s in sessions if s.title == f"MCP · test-host · {today.isoformat()}"]
    assert first.meta["client"] == {"name": "test-host", "version": "1.0"}
    stored = archive.messages(first.id)
    assert [m.role for m in stored] == ["assistant", "tool"] * 2  # the two adds, no search
    assert "Saved to MEMORY.md" in stored[1].content  # a write's result is kept whole
    archive.close()


def test_recording_trouble_never_fails_a_call(
    home_dir: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    service = service_for(home_dir)
    assert service.recorder.archive is not None

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise StorageUnavailable("database or disk is full")

    monkeypatch.setattr(service.recorder.archive, "append", refuse)
    with caplog.at_level(logging.WARNING):
        for _ in range(3):
            done = service.call(
                "memory", {"action": "add", "target": "user", "content": "Tea"}, PEER
            )
            assert done.ok
    assert caplog.text.count("not being archived") == 1
    service.close()


def test_the_skills_index_names_this_servers_tools(home_dir: Path) -> None:
    tight = service_for(home_dir, skills={"index_budget_tokens": 150})
    block = tight.skills_index()
    assert "skill_list(query=...)" in block and "skills_search" not in block
    nothing_fits = service_for(home_dir, skills={"index_budget_tokens": 5}).skills_index()
    assert "3 skills are saved" in nothing_fits and "skill_list" in nothing_fits


def test_an_exception_around_the_handler_becomes_a_result_too(
    home_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The recorder and the bookkeeping run outside the handler's net; call has its own."""
    service = service_for(home_dir)

    def refuse(*args: Any) -> None:
        raise UnicodeEncodeError("utf-8", "\ud800", 0, 1, "surrogates not allowed")

    monkeypatch.setattr(service.recorder, "call", refuse)
    failed = service.call("memory", {"action": "show", "target": "user"}, PEER)
    assert not failed.ok and failed.result["error"] == "internal"
    assert "UnicodeEncodeError" in failed.result["message"] and "\ud800" not in failed.text
    service.close()


def test_the_protocol_layer_answers_even_if_the_service_raises(
    home_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The last net: a tool call is answered with an error result, never left hanging."""
    service = service_for(home_dir)

    def broken(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("service on fire")

    monkeypatch.setattr(service, "call", broken)

    async def main() -> types.CallToolResult:
        async with Client(build_server(service)) as client:
            with anyio.fail_after(10):
                return await client.call_tool("memory_search", {"query": "x"})

    result = anyio.run(main)
    assert result.is_error
    data = payload(result)
    assert data["error"] == "internal" and "service on fire" in data["message"]
