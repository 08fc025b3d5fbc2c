"""``/goal`` in chat: the chat's session runs the same goal policy as `kenning run --goal`."""

from __future__ import annotations

import asyncio
import io
from pathlib import Path

from rich.console import Console

from kenning.agent import goal as goals
from kenning.chat.goal import chat_goal, parse
from kenning.config import Config, EmbeddingConfig
from kenning.home import Home
from kenning.runtime.factory import open_session
from kenning.testing.models import ScriptedModel, tool_call


def _home(tmp_path: Path) -> Home:
    return Home(tmp_path / "home", Config(embedding=EmbeddingConfig(provider="none")))


def test_slash_goal_works_in_turns_until_the_check_passes(tmp_path: Path) -> None:
    write = tool_call("write_file", path="done.txt", content="ok\n")
    model = ScriptedModel(["first I look around", write, "written"])
    session = open_session(_home(tmp_path), model=model, cwd=tmp_path, review=False)
    out = io.StringIO()
    console = Console(file=out, width=120)

    async def go() -> None:
        await chat_goal(session, console, "create done.txt --check test -f done.txt")
        await session.close("user_exit")

    asyncio.run(go())
    assert "goal done (check passed) after 2 turns" in out.getvalue()
    state = goals.load(session)
    assert state is not None and state.check == "test -f done.txt" and state.turns == 2


def test_slash_goal_without_a_goal_shows_usage(tmp_path: Path) -> None:
    session = open_session(_home(tmp_path), model=ScriptedModel([]), cwd=tmp_path, review=False)
    out = io.StringIO()
    asyncio.run(chat_goal(session, Console(file=out), "  --check true"))
    assert "usage: /goal GOAL" in out.getvalue()
    assert parse("fix it --check make test") == ("fix it", "make test")
    session.tools.close()
