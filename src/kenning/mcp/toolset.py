"""MCP servers' tools as Kenning tools, for the agent to call like its own.

Each configured server (:mod:`kenning.mcp.servers`) is started (stdio) or
connected to (streamable HTTP, SSE) once per chat; its tools, or the
``allowed_tools`` of them, are registered as ``mcp__SERVER__TOOL`` (the names
Claude Code gives them), in the toolset ``mcp:SERVER``. Invariants:

- a tool the server annotates read-only (``readOnlyHint``) is a read-only
  Kenning tool: it runs in parallel with other read-only calls, without
  asking, and in plan mode; every other tool is exclusive (one at a time),
  asks through the chat's permission gate (``kenning.tools.permissions``),
  and is refused in plan mode;
- a server that fails to start, or a tool call that fails or times out,
  never breaks the chat: the first is a notice, the second an error result
  the model reads;
- leaving the chat stops every server it started.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
from collections.abc import Mapping
from contextlib import AsyncExitStack
from dataclasses import dataclass
from typing import Any

import httpx2
import mcp_types as types
from mcp.client.session import ClientSession
from mcp.client.sse import sse_client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from kenning.mcp.servers import McpServerSpec, environ_for, expand
from kenning.tools.base import ApprovalRequest, Tool, ToolContext, ToolResult
from kenning.tools.permissions import authorize
from kenning.tools.registry import ToolRegistry

CONNECT_TIMEOUT_S = 30.0
CALL_TIMEOUT_S = 300.0
PREFIX = "mcp"


def tool_name(server: str, tool: str) -> str:
    return f"{PREFIX}__{server}__{tool}"


@dataclass
class Connected:
    spec: McpServerSpec
    session: ClientSession
    tools: list[types.Tool]


def result_of(result: Any) -> ToolResult:
    """What the server answered, as the text the model reads."""
    if not isinstance(result, types.CallToolResult):
        return ToolResult.error(f"the server answered with {type(result).__name__}, not a result")
    parts: list[str] = []
    for block in result.content:
        if isinstance(block, types.TextContent):
            parts.append(block.text)
        else:
            kind = getattr(block, "type", type(block).__name__)
            parts.append(f"[{kind} content, not shown]")
    if not parts and result.structured_content is not None:
        parts.append(json.dumps(result.structured_content, ensure_ascii=False))
    text = "\n".join(parts) or "(no content)"
    if result.is_error:
        return ToolResult(f"Error: {text}", ok=False)
    data = result.structured_content if isinstance(result.structured_content, dict) else None
    return ToolResult(text, data=data)


class McpToolset:
    """The chat's MCP servers: ``await start()``, ``register(registry)``, ``await close()``."""

    def __init__(self, specs: list[McpServerSpec], environ: Mapping[str, str] | None = None):
        self.specs = specs
        self.environ = dict(os.environ if environ is None else environ)
        self.connected: list[Connected] = []
        self.problems: list[str] = []
        self._stack = AsyncExitStack()

    async def start(self) -> None:
        for spec in self.specs:
            try:
                async with asyncio.timeout(CONNECT_TIMEOUT_S):
                    session = await self._connect(spec)
                    listed = await session.list_tools()
            except Exception as exc:  # one broken server must not stop the chat
                self.problems.append(f"MCP server {spec.name!r} did not start: {_reason(exc)}")
                continue
            tools = [t for t in listed.tools if spec.allows(t.name)]
            self.connected.append(Connected(spec, session, tools))

    async def _connect(self, spec: McpServerSpec) -> ClientSession:
        stack = self._stack
        if spec.transport == "stdio":
            params = StdioServerParameters(
                command=spec.command, args=list(spec.args), env=environ_for(spec, self.environ)
            )
            # The server's own log lines would land in the middle of the chat.
            quiet = stack.enter_context(open(os.devnull, "w"))  # noqa: SIM115
            read, write = await stack.enter_async_context(stdio_client(params, errlog=quiet))
        elif spec.transport == "sse":
            headers = {k: expand(v, self.environ) for k, v in spec.headers.items()}
            read, write = await stack.enter_async_context(sse_client(spec.url, headers=headers))
        else:
            headers = {k: expand(v, self.environ) for k, v in spec.headers.items()}
            client = await stack.enter_async_context(httpx2.AsyncClient(headers=headers))
            read, write = await stack.enter_async_context(
                streamable_http_client(spec.url, http_client=client)
            )
        session = await stack.enter_async_context(ClientSession(read, write))
        await session.initialize()
        return session

    def register(self, registry: ToolRegistry) -> list[str]:
        """Add every connected server's tools to ``registry``; their names."""
        names = []
        for server in self.connected:
            for tool in server.tools:
                made = _as_tool(server, tool)
                registry.register(made, replace=True)
                names.append(made.name)
        return names

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            await self._stack.aclose()


def _reason(exc: BaseException) -> str:
    if isinstance(exc, TimeoutError):
        return f"no answer in {CONNECT_TIMEOUT_S:g} s"
    if isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        return _reason(exc.exceptions[0])
    return str(exc) or type(exc).__name__


def _as_tool(server: Connected, tool: types.Tool) -> Tool:
    spec, session = server.spec, server.session
    read_only = bool(tool.annotations and tool.annotations.read_only_hint)
    name = tool_name(spec.name, tool.name)
    schema = dict(tool.input_schema or {"type": "object", "properties": {}})
    description = (tool.description or tool.title or tool.name).strip()

    async def call(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        detail = json.dumps(args, ensure_ascii=False, indent=2)
        request = ApprovalRequest(
            name, f"a tool of the MCP server {spec.name!r}", kind="mcp", detail=detail
        )
        await authorize(ctx, request, safe=read_only)
        try:
            result = await session.call_tool(tool.name, args, read_timeout_seconds=CALL_TIMEOUT_S)
        except Exception as exc:
            return ToolResult.error(
                f"the MCP server {spec.name!r} failed on {tool.name}: {_reason(exc)}",
                "try once more, or do without this tool.",
            )
        return result_of(result)

    return Tool.from_schema(
        name,
        {"description": f"[{spec.name} MCP] {description}", "parameters": schema},
        call,
        read_only=read_only,
        toolset=f"mcp:{spec.name}",
    )
