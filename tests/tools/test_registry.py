"""The registry: toolsets, restricted views, and parallel-safe batches."""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path
from typing import Any

import pytest

from kenning.home import Home
from kenning.models.types import ChatMessage, ToolCall
from kenning.tools import Access, Tool, ToolContext, ToolRegistry, default_registry, tool
from kenning.tools.base import ToolResult

BUILTINS = [
    "read_file",
    "write_file",
    "edit_file",
    "list_files",
    "search_files",
    "shell",
    "memory",
    "session_search",
    "memory_search",
    "memory_get",
]


def calls(*specs: tuple[str, dict[str, Any]]) -> list[ToolCall]:
    return [ToolCall(f"c{i}", name, json.dumps(args)) for i, (name, args) in enumerate(specs)]


def run_batch(registry: ToolRegistry, batch: list[ToolCall], ctx: ToolContext) -> list[str]:
    messages = asyncio.run(registry.run_batch(batch, ctx))
    assert [m.tool_call_id for m in messages] == [c.id for c in batch]
    assert all(m.role == "tool" for m in messages)
    return [m.content for m in messages]


def test_default_registry_offers_the_builtins_by_toolset(home: Home) -> None:
    registry = default_registry(home)
    assert registry.names() == BUILTINS
    assert registry.toolsets() == {
        "files": BUILTINS[:5],
        "shell": ["shell"],
        "memory": ["memory"],
        "archive": ["session_search", "memory_search", "memory_get"],
    }
    assert [s.name for s in registry.specs(["memory", "archive"])] == BUILTINS[6:]
    assert [t for t in registry.names() if registry.get(t).read_only] == [  # type: ignore[union-attr]
        "read_file",
        "list_files",
        "search_files",
        "session_search",
        "memory_search",
        "memory_get",
    ]
    only_files = default_registry(home, toolsets=["files"])
    assert only_files.names() == BUILTINS[:5]
    with pytest.raises(ValueError, match="already registered"):
        registry.register(registry.get("shell"))  # type: ignore[arg-type]
    registry.close()


def test_a_schema_tool_is_added_in_one_line(home: Home, ctx: ToolContext) -> None:
    registry = default_registry(home, toolsets=[])
    schema = {
        "name": "skill_view",
        "description": "Show a skill.",
        "parameters": {
            "type": "object",
            "properties": {"name": {"type": "string"}},
            "required": ["name"],
        },
    }
    registry.add_schema(
        "skill_view", schema, lambda args: {"success": True, "body": args["name"]},
        read_only=True, toolset="skills",
    )  # fmt: skip
    assert registry.toolsets() == {"skills": ["skill_view"]}
    out = run_batch(registry, calls(("skill_view", {"name": "deploy"})), ctx)
    assert out == ['{"success": true, "body": "deploy"}']


def test_unknown_tools_and_malformed_arguments_are_answered(home: Home, ctx: ToolContext) -> None:
    registry = default_registry(home, toolsets=["files"])
    batch = [
        ToolCall("a", "read_fil", '{"path": "x"}'),
        ToolCall("b", "read_file", '{"path": "x"'),
        ToolCall("c", "read_file", "[1, 2]"),
        ToolCall("d", "write_file", '{"path": "x.txt"}'),
    ]
    unknown, broken, not_object, missing = run_batch(registry, batch, ctx)
    assert unknown.startswith("Error: there is no tool named 'read_fil'. Did you mean 'read_file'?")
    assert "call one of the available tools: read_file, write_file" in unknown
    assert "not valid JSON" in broken and '{"path": "<string>"}' in broken
    assert "must be a JSON object, got list" in not_object
    assert "missing required argument content" in missing and "content: string" in missing


def test_restricted_views_refuse_other_tools_at_dispatch(
    home: Home, ctx: ToolContext, workspace: Path
) -> None:
    registry = default_registry(home)
    view = registry.restricted(["read_file", "memory", "no_such_tool"], label="memory flush")
    assert view.names() == ["read_file", "memory"]
    assert [s.name for s in view.specs()] == ["read_file", "memory"]
    assert "shell" not in view and "read_file" in view and len(view) == 2
    assert view.get("shell") is None and registry.get("shell") is not None
    (workspace / "a.txt").write_text("hi\n")
    read, write = run_batch(
        view,
        calls(("read_file", {"path": "a.txt"}), ("write_file", {"path": "b", "content": "x"})),
        ctx,
    )
    assert "hi" in read
    assert write.startswith("Error: the tool 'write_file' is not available in this context")
    assert "(memory flush)" in write and "read_file, memory" in write
    assert not (workspace / "b").exists()
    narrower = view.restricted(["memory", "shell"])
    assert narrower.names() == ["memory"]  # a view never widens


def barrier_tool(name: str, barrier: threading.Barrier, **options: Any) -> Tool:
    def wait_for_the_other(path: str) -> str:
        """Wait until the other call arrives too."""
        barrier.wait()  # raises BrokenBarrierError after its timeout if run alone
        return f"{name} passed"

    return Tool.from_function(wait_for_the_other, name=name, **options)


def test_read_only_calls_run_concurrently(home: Home, ctx: ToolContext) -> None:
    barrier = threading.Barrier(3, timeout=5)
    registry = ToolRegistry([barrier_tool(f"look{i}", barrier, read_only=True) for i in range(3)])
    out = run_batch(registry, calls(*((f"look{i}", {"path": "same"}) for i in range(3))), ctx)
    assert out == ["look0 passed", "look1 passed", "look2 passed"]


def test_writes_to_different_paths_run_concurrently(home: Home, ctx: ToolContext) -> None:
    barrier = threading.Barrier(2, timeout=5)
    registry = ToolRegistry(
        [barrier_tool(name, barrier, writes=["path"]) for name in ("put_a", "put_b")]
    )
    batch = calls(("put_a", {"path": "dir/a.txt"}), ("put_b", {"path": "dir/b.txt"}))
    assert run_batch(registry, batch, ctx) == ["put_a passed", "put_b passed"]


def recorder(log: list[str], **options: Any) -> Tool:
    async def record(path: str, label: str) -> str:
        """Record when it starts and ends, yielding in between."""
        log.append(f"start {label}")
        for _ in range(5):
            await asyncio.sleep(0)  # a parallel call would start in here
        log.append(f"end {label}")
        return label

    return Tool.from_function(record, **options)


def test_conflicting_calls_run_in_the_models_order(home: Home, ctx: ToolContext) -> None:
    log: list[str] = []
    registry = ToolRegistry(
        [
            recorder(log, name="write", writes=["path"]),
            recorder(log, name="read", read_only=True, reads=["path"]),
            recorder(log, name="run", exclusive=True),
            recorder(log, name="other", read_only=True),
        ]
    )
    batch = calls(
        ("write", {"path": "f.txt", "label": "w1"}),
        ("write", {"path": "./f.txt", "label": "w2"}),  # the same file, spelled differently
        ("read", {"path": ".", "label": "r3"}),  # the folder holding f.txt
        ("run", {"path": "-", "label": "x4"}),
        ("other", {"path": "-", "label": "o5"}),
    )
    assert run_batch(registry, batch, ctx) == ["w1", "w2", "r3", "x4", "o5"]
    assert log == [
        "start w1", "end w1", "start w2", "end w2", "start r3", "end r3",
        "start x4", "end x4", "start o5", "end o5",
    ]  # fmt: skip


def test_results_come_back_in_the_models_order(home: Home, ctx: ToolContext) -> None:
    second_done = asyncio.Event()
    finished: list[str] = []

    @tool(read_only=True)
    async def slow() -> str:
        """Finishes last."""
        await asyncio.wait_for(second_done.wait(), 5)
        finished.append("slow")
        return "slow result"

    @tool(read_only=True)
    async def fast() -> str:
        """Finishes first."""
        finished.append("fast")
        second_done.set()
        return "fast result"

    registry = ToolRegistry([slow, fast])
    assert run_batch(registry, calls(("slow", {}), ("fast", {})), ctx) == [
        "slow result",
        "fast result",
    ]
    assert finished == ["fast", "slow"]


def test_access_rule() -> None:
    a = Access.of(writes=["/w/a.txt"])
    assert a.conflicts(Access.of(reads=["/w"]))  # a folder contains the file
    assert a.conflicts(Access.of(writes=["/w/a.txt"]))
    assert not a.conflicts(Access.of(writes=["/w/b.txt"]))
    assert not a.conflicts(Access.of(reads=["/w/a.txt.bak"]))  # a prefix of the name is not
    assert not Access.of(reads=["/w"]).conflicts(Access.of(reads=["/w/a.txt"]))
    assert Access.EXCLUSIVE.conflicts(Access.NONE)
    writer = Tool.from_function(lambda_tool, name="undeclared")
    assert writer.access_for({}, None) is Access.EXCLUSIVE  # type: ignore[arg-type]


def lambda_tool() -> str:
    """A writer that declares nothing."""
    return ""


def test_hooks_see_every_call_and_begin_turn_resets(home: Home, ctx: ToolContext) -> None:
    events: list[str] = []
    turns: list[int] = []

    @tool(read_only=True)
    def ping() -> str:
        """Ping."""
        return "pong"

    registry = ToolRegistry([ping])
    registry.register(
        Tool.from_schema(
            "counter",
            {"type": "object", "properties": {}},
            lambda args: "ok",
            read_only=True,
            description="Counts turns.",
            begin_turn=lambda: turns.append(1),
        )
    )

    async def on_end(call: ToolCall, result: ToolResult) -> None:
        events.append(f"end {call.name} {result.ok}")

    messages = asyncio.run(
        registry.run_batch(
            calls(("ping", {}), ("nope", {})),
            ctx,
            on_start=lambda call: events.append(f"start {call.name}"),
            on_end=on_end,
        )
    )
    assert messages[0] == ChatMessage.tool("c0", "ping", "pong")
    assert sorted(events) == ["end nope False", "end ping True", "start nope", "start ping"]
    ctx.turn.result_chars = 123
    registry.begin_turn(ctx)
    assert ctx.turn.result_chars == 0 and turns == [1]


def test_execute_batch_reports_outcomes(home: Home, ctx: ToolContext, workspace: Path) -> None:
    registry = default_registry(home, toolsets=["files"])
    (workspace / "a.txt").write_text("x\n")
    outcomes = asyncio.run(registry.execute_batch(calls(("read_file", {"path": "a.txt"})), ctx))
    (only,) = outcomes
    assert only.result.ok and only.spill_path is None and only.seconds >= 0
    assert only.message.content == only.result.text


def test_a_failing_hook_does_not_fail_the_call(home: Home, ctx: ToolContext) -> None:
    @tool(read_only=True)
    def ping() -> str:
        """Ping."""
        return "pong"

    def broken_hook(call: ToolCall) -> None:
        raise RuntimeError("display went away")

    registry = ToolRegistry([ping])
    messages = asyncio.run(registry.run_batch(calls(("ping", {})), ctx, on_start=broken_hook))
    assert [m.content for m in messages] == ["pong"]


def test_derived_contexts_get_their_own_turn(ctx: ToolContext) -> None:
    ctx.turn.result_chars = 99
    ctx.extras["depth"] = 0
    child = ctx.derive(session_id="child", memory_writable=False, purpose="subagent")
    assert (child.session_id, child.memory_writable, child.cwd) == ("child", False, ctx.cwd)
    assert child.turn.result_chars == 0 and ctx.turn.result_chars == 99
    child.extras["depth"] = 1
    assert ctx.extras["depth"] == 0
