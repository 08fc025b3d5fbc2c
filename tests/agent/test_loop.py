"""The agent loop with scripted models: real homes, real tools, real archive."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from kenning.agent.events import TextChunk, ToolFinished, TurnEnded
from kenning.agent.loop import AgentSession, AgentSettings
from kenning.context.transcript import INTERRUPTED_RESULT
from kenning.home import Home
from kenning.models.errors import ModelError
from kenning.models.types import ChatMessage
from kenning.runtime.factory import build_tools
from kenning.testing.models import FunctionModel, ScriptedModel, tool_call
from kenning.tools.base import Tool


def start(home: Home, model: Any, cwd: Path, **settings: Any) -> AgentSession:
    return AgentSession.start(
        home,
        model,
        build_tools(home),
        cwd=cwd,
        settings=AgentSettings.from_home(home, **settings),
    )


def stored(home: Home, session_id: str) -> list[tuple[str, str]]:
    return [(m.role, m.content) for m in home.archive.messages(session_id)]


def test_multi_step_tool_task_completes_and_every_message_is_archived(
    home: Home, tmp_path: Path
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    model = ScriptedModel(
        [
            tool_call("write_file", path="notes.txt", content="alpha\nbeta\n"),
            tool_call("read_file", path="notes.txt"),
            "The file holds alpha and beta.",
        ]
    )
    session = start(home, model, work)
    ended = asyncio.run(session.run("Write two words to notes.txt and read them back."))
    model.assert_complete()
    assert ended.reason == "final" and ended.ok
    assert ended.answer == "The file holds alpha and beta."
    assert ended.iterations == 3
    assert (work / "notes.txt").read_text() == "alpha\nbeta\n"
    roles = [role for role, _ in stored(home, session.session_id)]
    assert roles == ["user", "assistant", "tool", "assistant", "tool", "assistant"]
    # the second request saw the first tool's result
    assert model.calls[1].messages[-1].role == "tool"
    assert "alpha" in model.calls[2].messages[-1].content
    sess = home.archive.session(session.session_id)
    assert sess is not None and sess.output_tokens > 0 and sess.model == "scripted:test"


def test_streaming_yields_text_chunks_that_make_the_answer(home: Home, tmp_path: Path) -> None:
    model = ScriptedModel(["Hello there, general Kenobi."])
    session = start(home, model, tmp_path)

    async def collect() -> list[Any]:
        return [e async for e in session.turn("hi")]

    events = asyncio.run(collect())
    text = "".join(e.text for e in events if isinstance(e, TextChunk))
    assert text == "Hello there, general Kenobi."
    assert isinstance(events[-1], TurnEnded) and events[-1].answer == text


def test_system_prompt_is_byte_identical_across_turns_when_memory_changes(
    home: Home, tmp_path: Path
) -> None:
    model = ScriptedModel(
        [
            tool_call("memory", action="add", target="user", content="Prefers tea to coffee."),
            "Noted.",
            "Still here.",
        ]
    )
    session = start(home, model, tmp_path)
    asyncio.run(session.run("Remember that I prefer tea."))
    asyncio.run(session.run("Anything else?"))
    model.assert_complete()
    assert "Prefers tea" in home.layout.user_file.read_text()
    prompts = {call.messages[0].content for call in model.calls}
    assert len(prompts) == 1
    assert "Prefers tea" not in prompts.pop()  # frozen at session start
    # a new session sees the write
    fresh = ScriptedModel(["hi"])
    asyncio.run(start(home, fresh, tmp_path).run("hello"))
    assert "Prefers tea" in fresh.calls[0].messages[0].content


def test_resume_keeps_the_frozen_prompt_and_the_conversation(home: Home, tmp_path: Path) -> None:
    first = ScriptedModel(["Four."])
    session = start(home, first, tmp_path)
    asyncio.run(session.run("What is 2 + 2?"))
    home.memory.add(
        __import__("kenning.memory.store", fromlist=["Target"]).Target.USER, "Late fact"
    )
    second = ScriptedModel(["Eight."])
    resumed = AgentSession.resume(home, second, build_tools(home), session.session_id, cwd=tmp_path)
    asyncio.run(resumed.run("And doubled?"))
    sent = second.calls[0].messages
    assert sent[0].content == first.calls[0].messages[0].content
    assert [(m.role, m.content) for m in sent[1:]] == [
        ("user", "What is 2 + 2?"),
        ("assistant", "Four."),
        ("user", "And doubled?"),
    ]


def test_large_results_spill_to_a_file_with_a_preview(home: Home, tmp_path: Path) -> None:
    tools = build_tools(home)

    def dump_log() -> str:
        """Return the whole build log."""
        return "".join(f"line {i:06d} of the build log\n" for i in range(6000))  # ~170k chars

    tools.register(Tool.from_function(dump_log, read_only=True))
    model = ScriptedModel([tool_call("dump_log"), "It built."])
    session = AgentSession.start(home, model, tools, cwd=tmp_path)
    ended = asyncio.run(session.run("show me the log"))
    assert ended.ok
    tool_msg = next(m for m in home.archive.messages(session.session_id) if m.role == "tool")
    assert len(tool_msg.content) < 5_000
    assert tool_msg.meta and "spill_path" in tool_msg.meta
    spilled = Path(tool_msg.meta["spill_path"])
    assert spilled.is_file() and home.layout.spill_dir in spilled.parents
    assert "line 005999" in spilled.read_text()
    assert str(spilled) in tool_msg.content
    # the model saw the preview, not the whole log
    assert len(model.calls[1].messages[-1].content) < 5_000


def test_malformed_tool_arguments_go_back_to_the_model(home: Home, tmp_path: Path) -> None:
    model = ScriptedModel(
        [
            tool_call("read_file", raw='{"path": "a.txt"'),
            "Sorry, I could not read it.",
        ]
    )
    session = start(home, model, tmp_path)
    ended = asyncio.run(session.run("read a.txt"))
    assert ended.ok
    error = model.calls[1].messages[-1]
    assert error.role == "tool" and "JSON" in error.content


def test_model_errors_end_the_turn_with_a_clear_message(home: Home, tmp_path: Path) -> None:
    model = ScriptedModel([ModelError("auth", "401 Unauthorized: invalid API key")])
    session = start(home, model, tmp_path)
    ended = asyncio.run(session.run("hello"))
    assert ended.reason == "error"
    assert ended.error is not None and "API key" in ended.error
    assert stored(home, session.session_id) == [("user", "hello")]


def test_context_overflow_is_handed_to_the_overflow_handler(home: Home, tmp_path: Path) -> None:
    model = ScriptedModel([ModelError("context_overflow", "prompt is too long"), "Short now."])
    session = start(home, model, tmp_path)
    calls: list[str] = []

    async def shrink(agent: AgentSession) -> bool:
        calls.append(agent.session_id)
        return True

    session.on_overflow = shrink
    ended = asyncio.run(session.run("hello"))
    assert ended.ok and ended.answer == "Short now." and calls == [session.session_id]
    without = start(home, ScriptedModel([ModelError("context_overflow", "too long")]), tmp_path)
    ended = asyncio.run(without.run("hello"))
    assert ended.reason == "error" and ended.error and "/new" in ended.error


def test_iteration_budget_stops_a_runaway_loop(home: Home, tmp_path: Path) -> None:
    model = FunctionModel(lambda messages, tools, settings: tool_call("list_files"))
    session = start(home, model, tmp_path, max_iterations=3)
    ended = asyncio.run(session.run("loop forever"))
    assert ended.reason == "max_iterations" and ended.iterations == 3
    assert ended.error and "agent.max_iterations" in ended.error
    assert len(model.calls) == 3


def test_time_budget_ends_the_turn_and_keeps_the_transcript(home: Home, tmp_path: Path) -> None:
    async def slow(messages: Any, tools: Any, settings: Any) -> str:
        await asyncio.sleep(30)
        return "too late"

    session = start(home, FunctionModel(slow), tmp_path, turn_timeout_s=0.2)
    ended = asyncio.run(session.run("take your time"))
    assert ended.reason == "timeout" and ended.error and "turn_timeout_s" in ended.error
    assert stored(home, session.session_id) == [("user", "take your time")]


def test_interrupt_mid_tool_call_answers_the_call_and_can_resume(
    home: Home, tmp_path: Path
) -> None:
    tools = build_tools(home)
    started = asyncio.Event()

    async def wait_forever() -> str:
        """Block until cancelled."""
        started.set()
        await asyncio.sleep(3600)
        return "never"

    tools.register(Tool.from_function(wait_forever, read_only=True))
    model = ScriptedModel([tool_call("wait_forever")])
    session = AgentSession.start(home, model, tools, cwd=tmp_path)

    async def run_and_interrupt() -> None:
        task = asyncio.create_task(session.run("do the slow thing"))
        await started.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(run_and_interrupt())
    messages = home.archive.messages(session.session_id)
    assert [m.role for m in messages] == ["user", "assistant", "tool"]
    assert messages[-1].content == INTERRUPTED_RESULT
    follow = ScriptedModel(["Picking up where we left off."])
    resumed = AgentSession.resume(home, follow, tools, session.session_id, cwd=tmp_path)
    ended = asyncio.run(resumed.run("continue"))
    assert ended.ok
    assert [m.role for m in follow.calls[0].messages] == [
        "system",
        "user",
        "assistant",
        "tool",
        "user",
    ]


def test_tool_events_follow_the_models_order(home: Home, tmp_path: Path) -> None:
    for name in ("a.txt", "b.txt", "c.txt"):
        (tmp_path / name).write_text(name)
    model = ScriptedModel(
        [
            [tool_call("read_file", path=n) for n in ("c.txt", "a.txt", "b.txt")],
            "read them",
        ]
    )
    session = start(home, model, tmp_path)

    async def collect() -> list[Any]:
        return [e async for e in session.turn("read all")]

    finished = [e for e in asyncio.run(collect()) if isinstance(e, ToolFinished)]
    assert [json.loads(e.call.arguments)["path"] for e in finished] == ["c.txt", "a.txt", "b.txt"]
    tool_msgs = [m for m in home.archive.messages(session.session_id) if m.role == "tool"]
    assert ["c.txt" in tool_msgs[0].content, "a.txt" in tool_msgs[1].content] == [True, True]


def test_a_failing_hook_is_a_notice_not_a_crash(home: Home, tmp_path: Path) -> None:
    session = start(home, ScriptedModel(["ok"]), tmp_path)

    def broken(agent: AgentSession, payload: Any) -> None:
        raise RuntimeError("plug-in bug")

    session.hooks.add("turn_end", broken)
    ended = asyncio.run(session.run("hi"))
    assert ended.ok


def test_view_never_contains_a_dangling_tool_call(home: Home, tmp_path: Path) -> None:
    session = start(home, ScriptedModel([]), tmp_path)
    call = tool_call("read_file", path="x")
    session.transcript.append(ChatMessage.user("hi"))
    session.transcript.append(ChatMessage.assistant("", [call]))
    assert session.transcript.dangling_calls() == [call]
    assert session.transcript.repair() == 1
    assert session.transcript.dangling_calls() == []


def test_a_toolset_choice_hides_and_refuses_other_tools(home: Home, tmp_path: Path) -> None:
    model = ScriptedModel(
        [tool_call("memory", action="add", target="user", content="sneaky"), "ok"]
    )
    session = start(home, model, tmp_path, toolsets=("files",))
    asyncio.run(session.run("remember something"))
    offered = {t.name for t in model.calls[0].tools}
    assert "read_file" in offered and "memory" not in offered
    refusal = model.calls[1].messages[-1]
    assert refusal.role == "tool" and refusal.content.startswith("Error")
    assert not home.layout.user_file.exists()


def test_the_prompt_lists_skills_and_skill_view_reads_one(home: Home, tmp_path: Path) -> None:
    model = ScriptedModel([tool_call("skill_view", name="git-bisect"), "Use git bisect."])
    session = AgentSession.start(
        home,
        model,
        build_tools(home),
        cwd=tmp_path,
        skills_block=__import__("kenning.prompt.system", fromlist=["x"]).skills_block(home),
    )
    asyncio.run(session.run("how do I find the commit that broke the build?"))
    prompt = model.calls[0].messages[0].content
    assert "git-bisect" in prompt
    viewed = model.calls[1].messages[-1]
    assert (
        viewed.role == "tool"
        and "bisect" in viewed.content
        and not viewed.content.startswith("Error")
    )
