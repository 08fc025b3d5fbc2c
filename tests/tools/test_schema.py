"""Tools from typed functions: the schema, the description, argument checks, failures."""

from __future__ import annotations

import asyncio
import threading
from typing import Any, Literal

import pytest

from kenning.tools import Tool, ToolContext, ToolError, ToolResult, tool
from kenning.tools.schema import SchemaError, parse_docstring


def lookup(
    query: str,
    mode: Literal["fast", "exact"] = "fast",
    limit: int = 10,
    since: str | None = None,
    tags: list[str] | None = None,
    verbose: bool = False,
    weight: float = 0.5,
    *,
    ctx: ToolContext,
) -> str:
    """Look something up in the catalogue.

    Use it before guessing.

    Args:
        query: What to look for. Plain words
            work best.
        mode: How hard to look.
        limit: How many results.
        since: Only results after this day (YYYY-MM-DD).

    Returns:
        A list of hits.
    """
    return f"{query}|{mode}|{limit}|{since}|{tags}|{verbose}|{weight}|{ctx.session_id}"


def test_schema_comes_from_the_signature_and_docstring() -> None:
    t = Tool.from_function(lookup, toolset="demo")
    assert t.name == "lookup"
    assert t.description == "Look something up in the catalogue.\n\nUse it before guessing."
    props = t.parameters["properties"]
    assert t.parameters["required"] == ["query"]
    assert props["query"] == {
        "type": "string",
        "description": "What to look for. Plain words work best.",
    }
    assert props["mode"] == {
        "type": "string",
        "enum": ["fast", "exact"],
        "description": "How hard to look.",
        "default": "fast",
    }
    assert props["limit"]["type"] == "integer" and props["limit"]["default"] == 10
    assert props["since"]["type"] == "string" and "default" not in props["since"]
    assert props["tags"] == {"type": "array", "items": {"type": "string"}}
    assert props["verbose"] == {"type": "boolean", "default": False}
    assert props["weight"] == {"type": "number", "default": 0.5}
    assert "ctx" not in props  # the context is the runtime's, not the model's
    spec = t.spec()
    assert (spec.name, spec.description, spec.parameters) == (
        "lookup",
        t.description,
        t.parameters,
    )


def test_decorator_forms_and_overrides() -> None:
    @tool
    def plain(x: int) -> int:
        """Double it."""
        return 2 * x

    @tool(name="renamed", read_only=True, toolset="x")
    def other(x: int) -> int:
        """Triple it."""
        return 3 * x

    assert plain.name == "plain" and not plain.read_only
    assert other.name == "renamed" and other.read_only and other.toolset == "x"


def test_functions_that_cannot_be_described_are_rejected_at_definition() -> None:
    def no_doc(x: int) -> None:
        pass

    def untyped(x) -> None:  # type: ignore[no-untyped-def]
        """Doc."""

    def odd(x: set[int]) -> None:
        """Doc."""

    def union(x: int | str) -> None:
        """Doc."""

    for fn in (no_doc, untyped, odd, union):
        with pytest.raises(SchemaError):
            Tool.from_function(fn)


def test_docstring_parsing_handles_types_and_sections() -> None:
    doc = parse_docstring(
        """Summary line.

        More detail.

        Args:
            path (str): The file.
            limit: How many
                lines at most.

        Raises:
            ValueError: never mentioned as a parameter.
        """
    )
    assert doc.summary == "Summary line.\n\nMore detail."
    assert doc.params == {"path": "The file.", "limit": "How many lines at most."}


def test_arguments_are_checked_before_the_function_runs(ctx: ToolContext) -> None:
    ran: list[Any] = []

    @tool
    def pick(name: str, count: int, mode: Literal["a", "b"] = "a") -> str:
        """Pick."""
        ran.append(name)
        return "ok"

    result = asyncio.run(pick.run({"count": "many", "mode": "c", "colour": "red"}, ctx))
    assert not result.ok and not ran
    text = result.text
    assert text.startswith("Error: invalid arguments for pick:")
    for part in (
        "missing required argument name",
        "count must be an integer, got 'many'",
        "mode must be one of 'a', 'b', got 'c'",
        "unknown argument colour",
    ):
        assert part in text
    # The next step lists what the tool expects.
    assert "name: string (required)" in text
    assert "mode: 'a' | 'b' (optional, default 'a')" in text


def test_unambiguous_mistakes_are_coerced(ctx: ToolContext) -> None:
    t = Tool.from_function(lookup)
    args = {"query": "q", "limit": "7", "verbose": "true", "weight": 2, "since": None}
    result = asyncio.run(t.run(args, ctx))
    assert result.ok
    assert result.text == "q|fast|7|None|None|True|2|sess-1"


def test_null_for_an_argument_with_a_default_means_the_default(ctx: ToolContext) -> None:
    @tool
    def paged(offset: int = 1) -> str:
        """Paged."""
        return str(offset)

    assert asyncio.run(paged.run({"offset": None}, ctx)).text == "1"
    missing = asyncio.run(Tool.from_function(lookup).run({"query": None}, ctx))
    assert not missing.ok and "missing required argument query" in missing.text


def test_exceptions_become_error_results(ctx: ToolContext) -> None:
    @tool
    def broken(x: int) -> str:
        """Breaks."""
        raise KeyError("nope")

    @tool
    def refuses(x: int) -> str:
        """Refuses."""
        raise ToolError("x is too big.", "pass a smaller x.")

    crash = asyncio.run(broken.run({"x": 1}, ctx))
    assert not crash.ok
    assert crash.text.startswith("Error: broken failed with KeyError: 'nope'")
    assert "Next step:" in crash.text
    refusal = asyncio.run(refuses.run({"x": 1}, ctx))
    assert refusal.text == "Error: x is too big.\nNext step: pass a smaller x."


def test_sync_functions_run_off_the_event_loop(ctx: ToolContext) -> None:
    seen: list[str] = []

    @tool
    def where() -> str:
        """Where am I."""
        seen.append(threading.current_thread().name)
        return "ok"

    @tool
    async def where_async(ctx: ToolContext) -> str:
        """Where am I, async."""
        seen.append(threading.current_thread().name)
        return ctx.purpose

    asyncio.run(where.run({}, ctx))
    assert asyncio.run(where_async.run({}, ctx)).text == "main"
    assert seen[0] != threading.main_thread().name
    assert seen[1] == threading.main_thread().name


SCHEMA = {
    "name": "thing",
    "description": "Do a thing.",
    "parameters": {
        "type": "object",
        "properties": {
            "action": {"type": "string", "enum": ["show", "add"]},
            "items": {"type": "array", "items": {"type": "object", "properties": {}}},
        },
        "required": ["action"],
    },
}


def test_from_schema_wraps_dict_callables(ctx: ToolContext) -> None:
    def handler(args: dict[str, Any]) -> dict[str, Any]:
        if args["action"] == "add":
            return {"success": False, "message": "full", "next_step": "remove one"}
        return {"success": True, "items": ["a"]}

    async def with_ctx(args: dict[str, Any], ctx: ToolContext) -> str:
        return f"{args['action']} in {ctx.session_id}"

    t = Tool.from_schema("thing", SCHEMA, handler, read_only=True, toolset="skills")
    assert t.spec().description == "Do a thing."
    assert t.spec().parameters == SCHEMA["parameters"]
    ok = asyncio.run(t.run({"action": "show"}, ctx))
    assert ok.ok and ok.text == '{"success": true, "items": ["a"]}'
    failed = asyncio.run(t.run({"action": "add"}, ctx))
    assert not failed.ok and '"next_step": "remove one"' in failed.text
    bad = asyncio.run(t.run({"action": "drop", "items": "x"}, ctx))
    assert not bad.ok and "items must be a list" in bad.text and "action must be one of" in bad.text

    bare = Tool.from_schema(
        "thing2", SCHEMA["parameters"], with_ctx, read_only=False, description="Other."
    )
    assert asyncio.run(bare.run({"action": "show"}, ctx)).text == "show in sess-1"

    class Stateful:  # the shape of the memory and skills tools: an object with __call__
        def __call__(self, args: dict[str, Any]) -> dict[str, Any]:
            return {"success": True, "seen": args["action"]}

    wrapped = Tool.from_schema("thing", SCHEMA, Stateful(), read_only=True)
    assert asyncio.run(wrapped.run({"action": "show"}, ctx)).text == (
        '{"success": true, "seen": "show"}'
    )
    with pytest.raises(ValueError, match="needs a description"):
        Tool.from_schema("x", SCHEMA["parameters"], handler, read_only=True)


def test_return_values_become_text(ctx: ToolContext) -> None:
    @tool
    def nothing() -> None:
        """Nothing."""

    @tool
    def explicit() -> ToolResult:
        """Explicit."""
        return ToolResult("custom", ok=False, meta={"k": 1})

    assert asyncio.run(nothing.run({}, ctx)).text == "Done."
    result = asyncio.run(explicit.run({}, ctx))
    assert (result.text, result.ok, dict(result.meta)) == ("custom", False, {"k": 1})
