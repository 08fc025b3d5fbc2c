"""A review that fails changes nothing, and the same messages are reviewed again later."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from kenning.agent.loop import AgentSession, AgentSettings
from kenning.home import Home
from kenning.learning import install_review
from kenning.memory.store import Target
from kenning.models.types import ChatMessage, ToolSpec
from kenning.runtime.factory import build_tools
from kenning.skills.agent_tools import library_for
from kenning.skills.guards import Writer
from kenning.testing.models import FunctionModel, ScriptedModel, tool_call

from .conftest import git_log, learning_home, start, tree_state
from .test_review_loop import SKILL

AGENT_SKILL = SKILL.replace("docker-network-fix", "agent-skill")


def _seeded(tmp_path: Path, **review: Any) -> Home:
    settings = {"memory_every_user_turns": 2, "skills_every_iterations": 0, **review}
    home = learning_home(tmp_path / "home", review=settings)
    home.memory.add(Target.MEMORY, "Seed fact.")
    library_for(home).create("agent-skill", AGENT_SKILL, by=Writer("agent", "earlier"))
    return home


def _two_turns(home: Home, tmp_path: Path, reviewer: Any) -> tuple[AgentSession, Any]:
    session = start(home, ScriptedModel(["a", "b", "c", "d"]), tmp_path)
    return session, install_review(session, model=reviewer)


WRITES = [
    tool_call("memory", action="add", target="user", content="User likes tea."),
    tool_call("skill_view", name="agent-skill"),
    tool_call("skill_manage", action="patch", name="agent-skill", old_string="## When",
              new_string="## When to use"),
]  # fmt: skip


@pytest.mark.parametrize("failure", ["raises", "cap", "timeout", "cancelled"])
def test_a_failed_review_leaves_files_and_history_unchanged(tmp_path: Path, failure: str) -> None:
    home = _seeded(tmp_path, max_iterations=4 if failure == "cap" else 8, timeout_s=0.5)
    before_files, before_log = tree_state(home), git_log(home)
    stall = asyncio.Event()

    async def reviewer_fn(messages: list[ChatMessage], tools: list[ToolSpec], s: Any) -> Any:
        done = sum(1 for m in messages if m.role == "tool")
        if done < len(WRITES):
            return WRITES[done]
        if failure == "raises":
            raise RuntimeError("the provider broke mid-review")
        if failure == "cap":
            return tool_call("memory", action="show", target="user")
        await stall.wait()  # timeout / cancelled: never answers
        return "never"

    reviewer = FunctionModel(reviewer_fn)

    async def run() -> Any:
        session, runner = _two_turns(home, tmp_path, reviewer)
        await session.run("one")
        await session.run("two")
        if failure == "cancelled":
            while len(reviewer.calls) <= len(WRITES):  # wait until it is stuck in the model
                await asyncio.sleep(0)
            runner.cancel()
        await runner.wait()
        return runner

    runner = asyncio.run(run())
    assert tree_state(home) == before_files
    assert git_log(home) == before_log
    assert list((home.root / "cache" / "staging").iterdir()) == []  # the scratch copy is gone
    # the staged writes really happened in the review (then were thrown away)
    results = [m.content for m in reviewer.calls[-1].messages if m.role == "tool"]
    assert "Saved to USER.md" in results[0] and "patched SKILL.md" in results[2]
    state = runner.state
    assert state.reviewed_through.get("memory", 0) == 0 and state.pending == ["memory"]
    if failure != "cancelled":
        report = runner.reports[-1]
        assert report.status == "failed" and report.error
        assert {"raises": "provider broke", "cap": "cap of 4", "timeout": "timed out"}[
            failure
        ] in report.error


def test_the_same_range_is_reviewed_again_after_a_failure(tmp_path: Path) -> None:
    home = _seeded(tmp_path)
    calls = 0

    def reviewer_fn(messages: list[ChatMessage], tools: list[ToolSpec], s: Any) -> Any:
        nonlocal calls
        calls += 1
        if calls == 1:
            raise RuntimeError("down")
        if not any(m.role == "tool" for m in messages):
            return tool_call("memory", action="add", target="user", content="User likes tea.")
        return "Saved."

    reviewer = FunctionModel(reviewer_fn)

    async def run() -> Any:
        session, runner = _two_turns(home, tmp_path, reviewer)
        await session.run("I like tea")
        await session.run("two")
        await runner.wait()
        await session.run("three")
        await session.run("four")
        await runner.wait()
        return runner

    runner = asyncio.run(run())
    failed, retried = runner.reports
    assert failed.status == "failed" and retried.status == "saved"
    assert (failed.first_seq, failed.last_seq) == (1, 4)
    assert (retried.first_seq, retried.last_seq) == (1, 8)  # the failed range again, and more
    assert "I like tea" in reviewer.calls[-1].messages[1].content
    assert runner.state.reviewed_through == {"memory": 8} and runner.state.pending == []
    assert "User likes tea." in home.layout.user_file.read_text()


def test_counters_and_cursor_survive_resume(tmp_path: Path) -> None:
    home = learning_home(tmp_path / "home", review={"memory_every_user_turns": 3})
    model = ScriptedModel(["a", "b", "c"])
    reviewer = ScriptedModel(["Nothing to save."])

    async def first() -> str:
        session = start(home, model, tmp_path)
        install_review(session, model=reviewer)
        await session.run("one")
        await session.run("two")
        await session.close()
        return session.session_id

    sid = asyncio.run(first())
    assert reviewer.calls == []

    async def resumed() -> Any:
        session = AgentSession.resume(home, model, build_tools(home), sid, cwd=tmp_path)
        runner = install_review(session, model=reviewer)
        assert runner.state.turns_since_memory == 2
        await session.run("three")
        report = await runner.wait()
        await session.close()
        return report

    report = asyncio.run(resumed())
    assert report.status == "nothing" and (report.first_seq, report.last_seq) == (1, 6)
    stored = home.archive.session(sid)
    assert stored is not None and stored.meta["review"]["reviewed_through"] == {"memory": 6}


@pytest.mark.parametrize("source", ["cron", "subagent", "review"])
def test_automated_sessions_never_trigger_a_review(tmp_path: Path, source: str) -> None:
    home = learning_home(tmp_path / "home", review={"memory_every_user_turns": 1})
    model = ScriptedModel(["a", "b"])
    session = AgentSession.start(
        home, model, build_tools(home), cwd=tmp_path, settings=AgentSettings(source=source)
    )
    runner = install_review(session, model=ScriptedModel([]))

    async def run() -> None:
        await session.run("one")
        await session.run("two")

    asyncio.run(run())
    assert not runner.running and runner.reports == []


def test_the_agents_own_memory_write_resets_the_counter(tmp_path: Path) -> None:
    home = learning_home(
        tmp_path / "home", review={"memory_every_user_turns": 2, "skills_every_iterations": 0}
    )
    model = ScriptedModel(
        [
            "a",
            tool_call("memory", action="add", target="user", content="User likes tea."),
            "Saved that you like tea.",
            "c",
        ]
    )
    reviewer = ScriptedModel(["Nothing to save."])

    async def run() -> Any:
        session = start(home, model, tmp_path)
        runner = install_review(session, model=reviewer)
        await session.run("one")
        await session.run("I like tea, remember that")  # the agent saved it itself
        assert not runner.running and runner.state.turns_since_memory == 0
        await session.run("three")
        assert not runner.running and runner.state.turns_since_memory == 1
        return runner

    runner = asyncio.run(run())
    assert reviewer.calls == [] and runner.reports == []
