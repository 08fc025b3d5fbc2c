"""delegate_task: a linked subagent session with memory writes disabled."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from kenning.agent.loop import AgentSession
from kenning.home import Home
from kenning.models.types import ChatMessage, ToolSpec
from kenning.runtime.factory import build_tools
from kenning.testing.models import FunctionModel, ScriptedModel, tool_call


def test_subagent_is_linked_and_cannot_write_memory(home: Home, tmp_path: Path) -> None:
    model = ScriptedModel(
        [
            tool_call("delegate_task", goal="Find the answer", background="It is 42."),
            tool_call("memory", action="add", target="memory", content="The answer is 42."),
            "The answer is 42.",
            "My subagent says 42.",
        ]
    )
    parent = AgentSession.start(home, model, build_tools(home), cwd=tmp_path)
    ended = asyncio.run(parent.run("What is the answer?"))
    model.assert_complete()
    assert ended.ok and ended.answer == "My subagent says 42."
    assert not home.layout.memory_file.exists() or "42" not in home.layout.memory_file.read_text()
    children = [s for s in home.archive.sessions(limit=10) if s.source == "subagent"]
    assert len(children) == 1
    child = children[0]
    assert child.parent_id == parent.session_id and child.end_reason == "subagent final"
    child_msgs = home.archive.messages(child.id)
    assert child_msgs[0].role == "user" and "It is 42." in child_msgs[0].content
    refusal = next(m for m in child_msgs if m.role == "tool")
    assert "read-only" in refusal.content or "not writable" in refusal.content
    # the subagent started fresh: its prompt is not the parent's and it saw no parent history
    child_call = model.calls[1]
    assert child_call.messages[0].content != model.calls[0].messages[0].content
    assert [m.role for m in child_call.messages] == ["system", "user"]
    assert "delegate_task" not in {t.name for t in child_call.tools}
    # the parent got the report as the tool result
    report = model.calls[3].messages[-1]
    assert report.role == "tool" and "The answer is 42." in report.content


def test_subagents_in_one_batch_run_concurrently_up_to_the_limit(
    home: Home, tmp_path: Path
) -> None:
    running = 0
    peak = 0

    async def fn(messages: list[ChatMessage], tools: list[ToolSpec], settings: Any) -> Any:
        nonlocal running, peak
        first = messages[1].content if len(messages) > 1 else ""
        if "You are a subagent" in messages[0].content:
            running += 1
            peak = max(peak, running)
            await asyncio.sleep(0.05)
            running -= 1
            return f"done: {first[:10]}"
        if messages[-1].role == "user":
            return [tool_call("delegate_task", goal=f"task {i}") for i in range(5)]
        return "all five done"

    parent = AgentSession.start(home, FunctionModel(fn), build_tools(home), cwd=tmp_path)
    ended = asyncio.run(parent.run("split the work"))
    assert ended.ok and ended.answer == "all five done"
    assert 1 < peak <= home.config.agent.subagent_max_concurrent


def test_a_long_subagent_answer_is_cut_to_the_parents_window(home: Home, tmp_path: Path) -> None:
    long_answer = "x" * 100_000
    # 12k window - 8,192 reserved for answers - the prompt so far: ~3k tokens left
    model = ScriptedModel(
        [tool_call("delegate_task", goal="write a lot"), long_answer, "ok"], context_window=12_000
    )
    parent = AgentSession.start(home, model, build_tools(home), cwd=tmp_path)
    asyncio.run(parent.run("go"))
    report = model.calls[2].messages[-1].content
    assert len(report) < 10_000 and "answer cut" in report and "session_search" in report


def test_a_subagent_asks_with_the_chats_permissions(home: Home, tmp_path: Path) -> None:
    from kenning.tools.base import ApprovalRequest
    from kenning.tools.permissions import Permissions

    asked: list[ApprovalRequest] = []

    async def approve(request: str) -> bool:
        assert isinstance(request, ApprovalRequest)
        asked.append(request)
        return False

    model = ScriptedModel(
        [
            tool_call("delegate_task", goal="Write notes.txt"),
            tool_call("write_file", path="notes.txt", content="from the subagent\n"),
            "I could not write it.",
            "The subagent was not allowed to write.",
        ]
    )
    parent = AgentSession.start(home, model, build_tools(home), cwd=tmp_path, approve=approve)
    parent.extras["permissions"] = Permissions("ask")
    assert asyncio.run(parent.run("Delegate writing notes.txt.")).ok
    assert not (tmp_path / "notes.txt").exists()
    assert [(a.kind, str(a)) for a in asked] == [("edit", "notes.txt")]
