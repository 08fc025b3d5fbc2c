"""The tool registry: which tools exist, which a turn may use, and how a batch runs.

A batch is the tool calls of one model response. ``run_batch`` returns one
``tool`` message per call, in the model's order, whatever order they finished
in. Calls run concurrently unless they conflict:

    Call j waits for every earlier call i of the batch that conflicts with it.
    Two calls conflict when either is exclusive, or one writes a resource the
    other reads or writes (paths overlap when equal or one contains the other).

So read-only calls run together; ``write_file`` to two different files runs
together; two writes to one path, a write and a read of it, or a write inside
a directory being searched run in the model's order; ``shell`` (which can
touch anything) and any tool that writes without declaring what runs alone,
after everything before it and before everything after it. Calls that fail
before running (unknown tool, malformed JSON, bad arguments, not allowed
here) touch nothing and are answered at once. At most ``max_parallel`` calls
run at the same time.

After the batch, oversized results are spilled (``spill.py``) with the limits
from the home's ``[agent]`` config unless the registry was given a policy.
"""

from __future__ import annotations

import asyncio
import dataclasses
import difflib
import inspect
import json
import logging
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kenning.models.types import ChatMessage, ToolArgumentsError, ToolCall, ToolSpec
from kenning.tools import spill
from kenning.tools.base import Access, Tool, ToolContext, ToolResult, TurnState
from kenning.tools.permissions import permissions_of, plan_refusal

if TYPE_CHECKING:
    from kenning.home import Home

log = logging.getLogger(__name__)

DEFAULT_MAX_PARALLEL = 8

StartHook = Callable[[ToolCall], Any]
EndHook = Callable[[ToolCall, ToolResult], Any]


@dataclass(frozen=True)
class ToolOutcome:
    """One finished call: the result as the model sees it (after spill) and its message."""

    call: ToolCall
    result: ToolResult
    message: ChatMessage
    spill_path: Path | None = None
    seconds: float = 0.0


@dataclass
class _Planned:
    call: ToolCall
    tool: Tool | None
    args: dict[str, Any]
    access: Access
    answer: ToolResult | None  # set when the call fails before running


class ToolRegistry:
    """Tools by name and toolset; ``restricted`` views for review, subagent and flush turns."""

    def __init__(
        self,
        tools: Iterable[Tool] = (),
        *,
        spill_policy: spill.SpillPolicy | None = None,
        max_parallel: int = DEFAULT_MAX_PARALLEL,
    ) -> None:
        self._tools: dict[str, Tool] = {}
        self._allowed: frozenset[str] | None = None
        self._restricted_label = ""
        self.spill_policy = spill_policy
        self.max_parallel = max(1, max_parallel)
        for t in tools:
            self.register(t)

    # -- what is there -----------------------------------------------------------------------

    def register(self, tool: Tool, *, toolset: str | None = None, replace: bool = False) -> Tool:
        """Add ``tool`` (optionally into ``toolset``); a second tool of one name is an error."""
        if toolset is not None:
            tool = dataclasses.replace(tool, toolset=toolset)
        if tool.name in self._tools and not replace:
            raise ValueError(f"a tool named {tool.name!r} is already registered")
        self._tools[tool.name] = tool
        return tool

    def add_function(self, fn: Callable[..., Any], **options: Any) -> Tool:
        """``register(Tool.from_function(fn, **options))``."""
        return self.register(Tool.from_function(fn, **options))

    def add_schema(
        self, name: str, schema: dict[str, Any], fn: Callable[..., Any], **options: Any
    ) -> Tool:
        """``register(Tool.from_schema(name, schema, fn, **options))``."""
        return self.register(Tool.from_schema(name, schema, fn, **options))

    def get(self, name: str) -> Tool | None:
        """The tool, if it exists and this registry allows it."""
        tool = self._tools.get(name)
        if tool is None or (self._allowed is not None and name not in self._allowed):
            return None
        return tool

    def names(self, toolsets: Iterable[str] | None = None) -> list[str]:
        wanted = None if toolsets is None else set(toolsets)
        return [
            t.name
            for t in self._tools.values()
            if self.get(t.name) is not None and (wanted is None or t.toolset in wanted)
        ]

    def toolsets(self) -> dict[str, list[str]]:
        found: dict[str, list[str]] = {}
        for name in self.names():
            found.setdefault(self._tools[name].toolset, []).append(name)
        return found

    def specs(self, toolsets: Iterable[str] | None = None) -> list[ToolSpec]:
        """What the model is told, in registration order."""
        return [self._tools[name].spec() for name in self.names(toolsets)]

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self.get(name) is not None

    def __len__(self) -> int:
        return len(self.names())

    def restricted(self, allowed_names: Iterable[str], *, label: str = "") -> ToolRegistry:
        """A view offering only ``allowed_names`` (names not registered are ignored).

        Calls to any other tool are refused at dispatch, even if the model
        learned the name elsewhere. ``label`` ("subagent", "memory flush")
        appears in the refusal.
        """
        view = ToolRegistry(spill_policy=self.spill_policy, max_parallel=self.max_parallel)
        view._tools = dict(self._tools)
        allowed = set(allowed_names) & set(self.names())
        view._allowed = frozenset(allowed)
        view._restricted_label = label or self._restricted_label
        return view

    def begin_turn(self, ctx: ToolContext) -> None:
        """Reset per-turn state: the spill budget and tools' own counters."""
        ctx.turn = TurnState()
        for tool in self._tools.values():
            if tool.begin_turn is not None:
                tool.begin_turn()

    def close(self) -> None:
        """Release what the tools hold (the archive tools' connection). Views share it."""
        for tool in self._tools.values():
            if tool.close is not None:
                tool.close()

    # -- running -----------------------------------------------------------------------------

    async def run_batch(
        self,
        calls: Sequence[ToolCall],
        ctx: ToolContext,
        *,
        on_start: StartHook | None = None,
        on_end: EndHook | None = None,
    ) -> list[ChatMessage]:
        """Run one response's tool calls; one ``tool`` message per call, in the model's order."""
        outcomes = await self.execute_batch(calls, ctx, on_start=on_start, on_end=on_end)
        return [o.message for o in outcomes]

    async def execute_batch(
        self,
        calls: Sequence[ToolCall],
        ctx: ToolContext,
        *,
        on_start: StartHook | None = None,
        on_end: EndHook | None = None,
    ) -> list[ToolOutcome]:
        """As ``run_batch``, with the results, spill paths and timings."""
        planned = [self._plan(call, ctx) for call in calls]
        limit = asyncio.Semaphore(self.max_parallel)
        tasks: list[asyncio.Task[tuple[ToolResult, float]]] = []
        for j, plan in enumerate(planned):
            after = [
                tasks[i]
                for i in range(j)
                if plan.answer is None
                and planned[i].answer is None
                and planned[i].access.conflicts(plan.access)
            ]
            tasks.append(
                asyncio.create_task(self._run_one(plan, ctx, after, limit, on_start, on_end))
            )
        try:
            finished = await asyncio.gather(*tasks)
        finally:
            for task in tasks:  # an interrupt cancels the whole batch, not half of it
                task.cancel()
        policy = self.spill_policy or spill.SpillPolicy.from_config(ctx.home.config.agent)
        items = [
            spill.SpillItem(
                p.call.id, p.call.name, result, spillable=p.tool is None or p.tool.spill
            )
            for p, (result, _) in zip(planned, finished, strict=True)
        ]
        kept = spill.apply(items, ctx, policy)
        return [
            ToolOutcome(
                p.call,
                k.result,
                ChatMessage.tool(p.call.id, p.call.name, k.result.text),
                k.path,
                seconds,
            )
            for p, k, (_, seconds) in zip(planned, kept, finished, strict=True)
        ]

    async def _run_one(
        self,
        plan: _Planned,
        ctx: ToolContext,
        after: list[asyncio.Task[tuple[ToolResult, float]]],
        limit: asyncio.Semaphore,
        on_start: StartHook | None,
        on_end: EndHook | None,
    ) -> tuple[ToolResult, float]:
        if after:
            await asyncio.wait(after)
        async with limit:
            await _call_hook(on_start, plan.call)
            started = time.monotonic()
            if plan.answer is not None:
                result = plan.answer
            else:
                assert plan.tool is not None
                result = await plan.tool.run(plan.args, ctx)
            seconds = time.monotonic() - started
            await _call_hook(on_end, plan.call, result)
        return result, seconds

    def _plan(self, call: ToolCall, ctx: ToolContext) -> _Planned:
        tool = self.get(call.name)
        if tool is None:
            return _Planned(call, None, {}, Access.NONE, self._unavailable(call.name))
        try:
            raw = call.parsed()
        except ToolArgumentsError as exc:
            answer = ToolResult.error(
                str(exc),
                f"call {call.name} again with its arguments as one JSON object, e.g. "
                f"{_example(tool)}",
                kind="malformed_arguments",
            )
            return _Planned(call, tool, {}, Access.NONE, answer)
        args, error = tool.check(raw)
        if error is not None:
            return _Planned(call, tool, args, Access.NONE, error)
        perms = permissions_of(ctx)
        if perms is not None and perms.mode == "plan" and not (tool.read_only or tool.gated):
            refusal = plan_refusal(f"{call.name}")
            answer = ToolResult.error(refusal.message, refusal.next_step, kind="plan_mode")
            return _Planned(call, tool, args, Access.NONE, answer)
        return _Planned(call, tool, raw, tool.access_for(args, ctx), None)

    def _unavailable(self, name: str) -> ToolResult:
        available = self.names()
        listing = ", ".join(available) or "none"
        if name in self._tools:
            where = f" ({self._restricted_label})" if self._restricted_label else ""
            return ToolResult.error(
                f"the tool {name!r} is not available in this context{where}.",
                f"use one of the available tools ({listing}) or give your answer without it.",
                kind="not_allowed",
            )
        close = difflib.get_close_matches(name, available, n=1)
        hint = f" Did you mean {close[0]!r}?" if close else ""
        return ToolResult.error(
            f"there is no tool named {name!r}.{hint}",
            f"call one of the available tools: {listing}.",
            kind="unknown_tool",
        )


async def _call_hook(hook: Callable[..., Any] | None, *args: Any) -> None:
    """Run a start/end hook; a failing hook is logged, never fails the call it watches."""
    if hook is None:
        return
    try:
        value = hook(*args)
        if inspect.isawaitable(value):
            await value
    except Exception:
        log.exception("tool hook %r failed", hook)


def _example(tool: Tool) -> str:
    props = tool.parameters.get("properties") or {}
    required = tool.parameters.get("required") or list(props)[:1]
    sample = {name: f"<{props.get(name, {}).get('type', 'value')}>" for name in required}
    return json.dumps(sample)


def default_registry(
    home: Home,
    *,
    toolsets: Iterable[str] | None = None,
    spill_policy: spill.SpillPolicy | None = None,
) -> ToolRegistry:
    """The built-in tools, for one session (the memory tool counts failures per turn).

    Toolsets: "files" (read_file, write_file, edit_file, list_files,
    search_files), "shell" (shell), "memory" (memory), "archive"
    (session_search, memory_search, memory_get). ``toolsets`` picks some; the
    skills tools and ``delegate_task`` are added by their owners.
    """
    from kenning.tools.file_search import list_files, search_files
    from kenning.tools.files import edit_file, read_file, write_file
    from kenning.tools.memory_tools import archive_tools, memory_tool
    from kenning.tools.shell import shell

    wanted = None if toolsets is None else set(toolsets)
    registry = ToolRegistry(spill_policy=spill_policy)
    builtins = [
        read_file,
        write_file,
        edit_file,
        list_files,
        search_files,
        shell,
        memory_tool(home),
        *archive_tools(home),
    ]
    for tool in builtins:
        if wanted is None or tool.toolset in wanted:
            registry.register(tool)
    return registry
