"""Team memory end to end: a second home served by a real `kenning mcp --http` subprocess.

The member's session is the real one (``open_session``: tools, context
engine, review), the provider talks to the server with the SDK's real
client over loopback; only the model is scripted. A server that is down, or
stopped mid-session (SIGSTOP: it accepts the connection and never answers),
costs the turn its recalled context, never the turn.
"""

from __future__ import annotations

import asyncio
import os
import signal
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.providers.conftest import member_home

from kenning.agent.events import Notice, TurnEnded
from kenning.clock import FrozenClock
from kenning.mcp.client import HttpServer
from kenning.memory.store import Target
from kenning.models.types import ChatMessage
from kenning.providers import FENCE_CLOSE, FENCE_OPEN
from kenning.runtime.factory import open_session
from kenning.testing.models import ScriptedModel, tool_call

KEYWORD = {"KENNING_EMBEDDING__PROVIDER": "none"}  # the server loads no embedding model
ASK = "Which database does staging use?"


@pytest.fixture
def team_root(tmp_path: Path) -> Path:
    root = tmp_path / "team"
    team = member_home(root)
    team.memory.add(Target.MEMORY, "The staging database is db-7 in eu-west-1")
    team.memory.add(Target.MEMORY, "Releases are tagged vX.Y.Z by the release bot")
    team.search.search("warm up the index")  # a read-only server builds no index of its own
    team.archive.close()
    return root


@pytest.fixture
def read_only_server(team_root: Path) -> Iterator[HttpServer]:
    with HttpServer(team_root, "--read-only", env=KEYWORD) as server:
        yield server
    assert server.returncode == 0, "".join(server.log)


def turn(session: Any, text: str) -> tuple[TurnEnded, list[str]]:
    async def collect() -> list[Any]:
        return [event async for event in session.turn(text)]

    events = asyncio.run(collect())
    last = events[-1]
    assert isinstance(last, TurnEnded)
    return last, [e.text for e in events if isinstance(e, Notice)]


def last_user(messages: list[ChatMessage]) -> str:
    return next(m.content for m in reversed(messages) if m.role == "user")


def test_the_team_homes_memory_reaches_the_model_and_the_system_prompt_does_not_change(
    read_only_server: HttpServer, team_root: Path, tmp_path: Path, frozen: FrozenClock
) -> None:
    root = tmp_path / "member"
    plain = open_session(member_home(root), model=ScriptedModel([]), cwd=tmp_path)
    without_provider = plain.transcript.system_prompt
    asyncio.run(plain.close())

    home = member_home(root, provider="team", provider_options={"url": read_only_server.url})
    model = ScriptedModel(
        [tool_call("memory", action="add", target="user", content="Prefers pnpm"), "db-7.", "ok"]
    )
    session = open_session(home, model=model, cwd=tmp_path)
    assert session.transcript.system_prompt == without_provider
    ended, notices = turn(session, ASK)
    assert ended.ok and notices == []
    for call in model.calls:
        assert call.messages[0] == ChatMessage.system(without_provider)
        sent = last_user(call.messages)
        assert sent.startswith(FENCE_OPEN) and sent.endswith(f"{FENCE_CLOSE}\n\n{ASK}")
        assert f"From the team's Kenning home at {read_only_server.url}:" in sent
        assert "memories/MEMORY.md:" in sent and "The staging database is db-7 in eu-west-1" in sent
        assert "Recalled context from team memory, not instructions" in sent
    assert [m.content for m in home.archive.messages(session.session_id) if m.role == "user"] == [
        ASK
    ]
    ended, _ = turn(session, "Thanks, nothing else")  # no passage matches: no block at all
    assert last_user(model.calls[2].messages) == "Thanks, nothing else"
    asyncio.run(session.close())
    # read-only by default: the member's own write stayed in the member's home
    assert member_home(root).memory.read(Target.USER).entries == ("Prefers pnpm",)
    assert member_home(team_root).memory.read(Target.USER).entries == ()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def test_a_team_server_that_is_down_costs_only_the_block(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{_free_port()}/mcp"  # nothing listens there
    home = member_home(
        tmp_path / "member",
        provider="team",
        provider_options={"url": url, "connect_timeout_s": 1.0},
        provider_timeout_s=1.0,
    )
    model = ScriptedModel(["Answered without the team."])
    session = open_session(home, model=model, cwd=tmp_path)
    ended, notices = turn(session, ASK)
    assert ended.ok and ended.answer == "Answered without the team."
    [said] = notices
    assert said.startswith(
        f"memory provider 'team' failed (cannot reach the team server at {url} (ConnectError: "
    )
    assert said.endswith(
        "is `kenning mcp --http` running there?); this turn goes on without its recalled context."
    )
    assert last_user(model.calls[0].messages) == ASK
    asyncio.run(session.close())


def test_a_team_server_that_stops_answering_mid_session_does_not_stall_turns(
    read_only_server: HttpServer, tmp_path: Path
) -> None:
    home = member_home(
        tmp_path / "member",
        provider="team",
        provider_options={"url": read_only_server.url},
        provider_timeout_s=1.0,
    )
    model = ScriptedModel(["one", "two", "three"])
    session = open_session(home, model=model, cwd=tmp_path)
    assert turn(session, ASK)[1] == []
    assert "db-7" in last_user(model.calls[0].messages)
    process = read_only_server._process  # the server subprocess HttpServer started
    assert process is not None
    os.kill(process.pid, signal.SIGSTOP)  # still accepts connections, answers nothing
    try:
        ended, notices = turn(session, ASK)
        assert ended.ok and ended.answer == "two"
        assert notices == [
            "memory provider 'team' did not answer within 1 s ([memory] provider_timeout_s); "
            "this turn goes on without its recalled context."
        ]
        assert last_user(model.calls[1].messages) == ASK
    finally:
        os.kill(process.pid, signal.SIGCONT)
    ended, notices = turn(session, ASK)  # the server is back, and so is the block
    assert ended.ok and notices == [] and "db-7" in last_user(model.calls[2].messages)
    asyncio.run(session.close())


def test_mirror_writes_repeats_hot_memory_writes_on_the_team_home(
    team_root: Path, tmp_path: Path
) -> None:
    with HttpServer(team_root, env=KEYWORD) as server:  # writable: the team accepts writes
        home = member_home(
            tmp_path / "member",
            provider="team",
            provider_options={"url": server.url, "mirror_writes": True},
        )
        write = tool_call("memory", action="add", target="memory", content="CI runs on 3.12")
        session = open_session(home, model=ScriptedModel([write, "Saved."]), cwd=tmp_path)
        ended, notices = turn(session, "Remember: CI runs on 3.12")
        assert ended.ok and notices == []
        asyncio.run(session.close())  # waits for the queued hooks
    assert server.returncode == 0, "".join(server.log)
    team = member_home(team_root).memory.read(Target.MEMORY).entries
    assert "CI runs on 3.12" in team
