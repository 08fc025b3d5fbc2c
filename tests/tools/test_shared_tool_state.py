"""One tool object serves every caller: a call's state lives in its context, never on the tool.

The registry's memory and skill tools are shared by every session and thread
that uses the registry (parallel subagents, the MCP server's clients). Who
calls, the commit reason and the turn's failure count come from each call's
``ToolContext``; two calls at the same time cannot see each other's.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import Any

import pytest
from tests.skills.conftest import skill_md

from kenning.home import Home
from kenning.memory import tool as memory_tool_mod
from kenning.skills import tool as skills_tool_mod
from kenning.skills.agent_tools import library_for, skill_registry_tools
from kenning.tools.base import Tool, ToolContext, ToolResult
from kenning.tools.memory_tools import memory_tool


def _in_threads(tool: Tool, calls: list[tuple[dict[str, Any], ToolContext]]) -> list[ToolResult]:
    results: list[ToolResult | None] = [None] * len(calls)

    def run(i: int) -> None:
        args, ctx = calls[i]
        results[i] = asyncio.run(tool.run(args, ctx))

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert all(r is not None for r in results)
    return [r for r in results if r is not None]


def _meet(fn: Callable[..., Any], barrier: threading.Barrier) -> Callable[..., Any]:
    """``fn`` that first waits until every call of the test is inside it."""

    def wrapped(*args: Any, **kwargs: Any) -> Any:
        barrier.wait()
        return fn(*args, **kwargs)

    return wrapped


def _recording(fn: Callable[..., Any]) -> tuple[Callable[..., Any], list[Any]]:
    seen: list[Any] = []

    def wrapped(*args: Any, **kwargs: Any) -> Any:
        seen.append((args, kwargs))
        return fn(*args, **kwargs)

    return wrapped, seen


def test_two_concurrent_memory_writes_keep_their_own_session(
    home: Home, monkeypatch: pytest.MonkeyPatch
) -> None:
    tool = memory_tool(home)
    # Both calls are under way (arguments being parsed) before either writes.
    barrier = threading.Barrier(2, timeout=10)
    monkeypatch.setattr(memory_tool_mod, "_parse", _meet(memory_tool_mod._parse, barrier))
    apply, seen = _recording(home.memory.apply)
    monkeypatch.setattr(home.memory, "apply", apply)
    results = _in_threads(
        tool,
        [
            (
                {"action": "add", "target": "memory", "content": f"Fact from {sid}"},
                ToolContext(home, session_id=sid),
            )
            for sid in ("s-1", "s-2")
        ],
    )
    assert all(r.ok for r in results), results
    reasons = {args[1][0].content: kwargs["reason"] for args, kwargs in seen}
    assert reasons == {
        "Fact from s-1": "memory tool, session s-1",
        "Fact from s-2": "memory tool, session s-2",
    }


def test_two_concurrent_skill_changes_keep_their_own_writer(
    home: Home, monkeypatch: pytest.MonkeyPatch
) -> None:
    tool = {t.name: t for t in skill_registry_tools(home)}["skill_manage"]
    library = library_for(home)
    barrier = threading.Barrier(2, timeout=10)
    monkeypatch.setattr(skills_tool_mod, "_change", _meet(skills_tool_mod._change, barrier))
    apply, seen = _recording(library.apply)
    monkeypatch.setattr(library, "apply", apply)
    results = _in_threads(
        tool,
        [
            (
                {"action": "create", "name": name, "content": skill_md(name)},
                ToolContext(home, session_id=sid, purpose=purpose),
            )
            for name, sid, purpose in (("by-main", "s-1", "main"), ("by-review", "s-2", "review"))
        ],
    )
    assert all(r.ok for r in results), results
    writers = {
        args[0].name: (args[1].session_id, args[1].automated, kw["reason"]) for args, kw in seen
    }
    assert writers == {
        "by-main": ("s-1", False, "skill_manage tool"),
        "by-review": ("s-2", True, "background review"),
    }


def test_failures_of_one_callers_turn_do_not_stop_another_caller(home: Home) -> None:
    memory = memory_tool(home)
    manage = {t.name: t for t in skill_registry_tools(home)}["skill_manage"]
    first, second = ToolContext(home, session_id="s-1"), ToolContext(home, session_id="s-2")
    bad_memory = {"action": "remove", "target": "user", "old_text": "nothing like this"}
    bad_skill = {"action": "patch", "name": "missing", "old_string": "a", "new_string": "b"}
    for tool, bad in ((memory, bad_memory), (manage, bad_skill)):
        answers = [asyncio.run(tool.run(bad, first)).text for _ in range(3)]
        assert "Stop retrying" in answers[2] and "Stop retrying" not in answers[1]
        other = asyncio.run(tool.run(bad, second)).text
        assert "Stop retrying" not in other, f"{tool.name}: {other}"
    assert first.turn.failures == {"memory": 3, "skill_manage": 3}
    assert second.turn.failures == {"memory": 1, "skill_manage": 1}
