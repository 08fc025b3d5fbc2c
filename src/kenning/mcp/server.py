"""The MCP protocol face of ``KenningService``, and the stdio and streamable-HTTP transports.

Built on the SDK's low-level ``Server`` with one handler per request type
rather than on ``MCPServer``'s decorators: ``MCPServer`` derives each tool's
schema from a Python signature and validates arguments with pydantic before
the tool runs, so a wrong argument would come back as a pydantic message,
unrecorded, and the schemas would differ from the ones Kenning's agent gets
(pydantic writes optional arguments as ``anyOf``, which some hosts reject).
Here the schemas are Kenning's, and every call reaches the service, which
answers mistakes in the house style and records them.

Tool work is synchronous (files, git, SQLite) and runs in a worker thread, so
a slow commit never stalls the event loop that answers pings and lists.
Logs go to stderr only: over stdio, stdout is the protocol.
"""

from __future__ import annotations

import ipaddress
import signal
import socket
import sys
import threading
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any
from urllib.parse import urlsplit

import anyio
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel.server import Server
from mcp.server.transport_security import TransportSecuritySettings
from mcp.shared.exceptions import MCPError

from kenning.mcp.recorder import Peer
from kenning.mcp.service import KenningService, Outcome, internal_error, render
from kenning.mcp.wire import REPAIRED_META, WellFormedBodies, protocol_stdin
from kenning.version import __version__
from kenning.wellformed import repair_data

SNAPSHOT_URI = "kenning://memory/snapshot"
SKILLS_URI = "kenning://skills/index"
SKILL_TEMPLATE = "kenning://skills/{name}"  # one skill's SKILL.md, as skill_view gives it
_SKILL_PREFIX = SKILL_TEMPLATE.removesuffix("{name}")
GUIDE_PROMPT = "kenning-memory-guide"
HTTP_PATH = "/mcp"

Ctx = ServerRequestContext[Any, Any]


def peer_of(ctx: Ctx) -> Peer:
    """The calling connection: its MCP session id over HTTP ("" otherwise) and client info."""
    key = ""
    headers = getattr(ctx.request, "headers", None)
    if headers is not None:
        key = str(headers.get("mcp-session-id") or "")
    client = ctx.session.client_params
    info = client.client_info if client is not None else None
    return Peer(key, info.name if info else None, info.version if info else None)


def build_server(service: KenningService) -> Server[Any]:
    """A low-level MCP server whose handlers all go through ``service``."""

    async def list_tools(ctx: Ctx, params: types.PaginatedRequestParams | None) -> Any:
        tools = [
            types.Tool(
                name=tool.name,
                title=offer.title,
                description=offer.describe(read_only=service.read_only),
                input_schema=dict(tool.parameters),
                annotations=types.ToolAnnotations(
                    title=offer.title,
                    read_only_hint=offer.read_only_hint or service.read_only,
                    destructive_hint=offer.destructive_hint and not service.read_only,
                    idempotent_hint=offer.read_only_hint,
                    open_world_hint=False,
                ),
            )
            for offer, tool in service.tools()
        ]
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: Ctx, params: types.CallToolRequestParams) -> Any:
        try:
            peer = peer_of(ctx)
            meta: dict[str, Any] = dict(params.meta or {})
            repaired = [str(place) for place in meta.get(REPAIRED_META) or ()]
            outcome = await anyio.to_thread.run_sync(
                partial(service.call, repaired=repaired), params.name, params.arguments, peer
            )
        except Exception as exc:  # service.call never raises; this is the net under it
            result, _ = repair_data(internal_error(params.name, exc))
            outcome = Outcome(result, render(result))
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=outcome.text)],
            structured_content=outcome.result,
            is_error=not outcome.ok,
        )

    async def list_resources(ctx: Ctx, params: types.PaginatedRequestParams | None) -> Any:
        return types.ListResourcesResult(
            resources=[
                types.Resource(
                    uri=SNAPSHOT_URI,
                    name="memory-snapshot",
                    title="Kenning hot memory",
                    description="The user's durable facts and preferences (MEMORY.md and USER.md) "
                    "as the block a Kenning session starts with; rendered when read. Pin it "
                    "into context at the start of a session.",
                    mime_type="text/plain",
                ),
                types.Resource(
                    uri=SKILLS_URI,
                    name="skills-index",
                    title="Kenning skills index",
                    description="The user's saved procedures: name and when to use each, as the "
                    "block a Kenning session starts with. Load one with skill_view.",
                    mime_type="text/plain",
                ),
            ]
        )

    async def list_resource_templates(ctx: Ctx, params: types.PaginatedRequestParams | None) -> Any:
        return types.ListResourceTemplatesResult(
            resource_templates=[
                types.ResourceTemplate(
                    uri_template=SKILL_TEMPLATE,
                    name="skill",
                    title="A Kenning skill",
                    description="One saved procedure's SKILL.md, by name (the names are in "
                    f"{SKILLS_URI} and skill_list).",
                    mime_type="text/markdown",
                )
            ]
        )

    async def read_resource(ctx: Ctx, params: types.ReadResourceRequestParams) -> Any:
        readers: dict[str, Callable[[], str]] = {
            SNAPSHOT_URI: service.snapshot,
            SKILLS_URI: service.skills_index,
        }
        uri = str(params.uri)
        reader = readers.get(uri)
        if reader is None and uri.startswith(_SKILL_PREFIX):
            reader = partial(_skill_text, service, uri.removeprefix(_SKILL_PREFIX))
        if reader is None:
            raise MCPError(
                types.INVALID_PARAMS,
                f"Unknown resource {params.uri}; Kenning serves {SNAPSHOT_URI}, {SKILLS_URI} "
                f"and {SKILL_TEMPLATE}.",
            )
        text = await anyio.to_thread.run_sync(reader)
        return types.ReadResourceResult(
            contents=[types.TextResourceContents(uri=params.uri, text=text, mime_type="text/plain")]
        )

    async def list_prompts(ctx: Ctx, params: types.PaginatedRequestParams | None) -> Any:
        return types.ListPromptsResult(
            prompts=[
                types.Prompt(
                    name=GUIDE_PROMPT,
                    title="How to use Kenning's memory",
                    description="How to use the memory layers — what goes to memory, what to "
                    "search for, when to write a skill — followed by the current hot memory "
                    "and skills index.",
                    arguments=[],
                )
            ]
        )

    async def get_prompt(ctx: Ctx, params: types.GetPromptRequestParams) -> Any:
        if params.name != GUIDE_PROMPT:
            raise MCPError(
                types.INVALID_PARAMS, f"Unknown prompt {params.name!r}; use {GUIDE_PROMPT!r}."
            )
        text = await anyio.to_thread.run_sync(service.guide)
        return types.GetPromptResult(
            description="How to use Kenning's memory, and what it holds now.",
            messages=[
                types.PromptMessage(role="user", content=types.TextContent(type="text", text=text))
            ],
        )

    return Server(
        "kenning",
        version=__version__,
        title="Kenning memory",
        instructions=service.instructions(),
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_list_resource_templates=list_resource_templates,
        on_read_resource=read_resource,
        on_list_prompts=list_prompts,
        on_get_prompt=get_prompt,
    )


def _skill_text(service: KenningService, name: str) -> str:
    found = service.skill(name)
    if found is None:
        raise MCPError(
            types.INVALID_PARAMS,
            f"There is no skill named {name!r}; find one with skill_list(query=...).",
        )
    return found


async def serve_stdio(service: KenningService) -> None:
    """Serve one client over stdin/stdout until it closes them, or SIGTERM/SIGINT."""
    from mcp.server.stdio import stdio_server

    server = build_server(service)
    signalled = anyio.Event()
    try:
        async with anyio.create_task_group() as group:
            group.start_soon(_stop_on_signal, group.cancel_scope, signalled)
            with protocol_stdin() as stdin:
                async with stdio_server(stdin=stdin) as (read, write):
                    await server.run(read, write, server.create_initialization_options())
            group.cancel_scope.cancel()  # stdin closed: the host is done with us
    finally:
        service.close("server stopped" if signalled.is_set() else "client disconnected")


async def _stop_on_signal(scope: anyio.CancelScope, signalled: anyio.Event) -> None:
    with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
        async for _ in signals:
            signalled.set()
            scope.cancel()
            return


def bind(host: str, port: int) -> socket.socket:
    """A listening socket (port 0 picks a free one), so the real port can be announced."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    return sock


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class OriginError(ValueError):
    """Not an origin (``scheme://host[:port]``); the message says what one looks like."""


def origin_of(url: str) -> str:
    """``url`` as browsers send it in ``Origin``: lowercase, no default port, no path.

    The SDK compares origins as strings, so ``HTTP://LocalHost:80/`` must
    become ``http://localhost`` to ever match.
    """
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError as exc:
        raise OriginError(f"{url!r} is not a URL ({exc})") from exc
    if not parts.scheme or not parts.hostname or parts.username or parts.password:
        raise OriginError(f"{url!r} is not an origin: write scheme://host[:port]")
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        raise OriginError(
            f"{url!r} is not an origin: an origin has no path, query or fragment "
            "(write scheme://host[:port])"
        )
    scheme, name = parts.scheme.lower(), parts.hostname.lower()
    shown = f"[{name}]" if ":" in name else name
    if port is None or (scheme, port) in (("http", 80), ("https", 443)):
        return f"{scheme}://{shown}"
    return f"{scheme}://{shown}:{port}"


def loopback_security(
    host: str, port: int, allow_origins: Sequence[str] = ()
) -> TransportSecuritySettings:
    """DNS rebinding protection for a loopback server: its own names, on its own port only.

    ``Host`` must name this server (a loopback name and this port), and a
    browser's ``Origin`` must be this server's own origin or one the user
    allowed: the SDK's default lets any page served on any local port
    (``http://localhost:9999``) call the tools, writes included. A request
    without ``Origin`` (not from a browser) passes, as before.
    """
    names = {"127.0.0.1", "localhost", "[::1]", f"[{host}]" if ":" in host else host}
    hosts = sorted(f"{name}:{port}" for name in names)
    if port == 80:  # browsers and HTTP clients leave the default port out
        hosts += sorted(names)
    own = [f"http://{value}" for value in hosts]
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=hosts,
        allowed_origins=[*own, *(origin_of(url) for url in allow_origins)],
    )


async def serve_http(
    service: KenningService,
    sock: socket.socket,
    *,
    allow_origins: Sequence[str] = (),
    announce: Callable[[str], None] = lambda line: print(line, file=sys.stderr, flush=True),
) -> None:
    """Serve streamable HTTP at ``/mcp`` on ``sock`` until SIGINT/SIGTERM.

    On a loopback address, Host and Origin are checked (``loopback_security``);
    elsewhere the valid names cannot be known, so nothing is checked.
    """
    import uvicorn

    host, port = sock.getsockname()[:2]
    server = build_server(service)
    security = loopback_security(host, port, allow_origins) if is_loopback(host) else None
    app = server.streamable_http_app(
        streamable_http_path=HTTP_PATH, host=host, transport_security=security
    )
    config = uvicorn.Config(
        WellFormedBodies(app), log_level="warning", access_log=False, lifespan="on"
    )
    shown = f"[{host}]" if ":" in host else host
    announce(f"kenning mcp: serving streamable HTTP at http://{shown}:{port}{HTTP_PATH}")
    # uvicorn shuts down gracefully on SIGTERM, then raises the signal again for
    # the previous handler; the default one would kill the process before the
    # archive sessions are ended, so the previous handler becomes an exception.
    main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _interrupt) if main else None
    try:
        await uvicorn.Server(config).serve(sockets=[sock])
    finally:
        if main:
            signal.signal(signal.SIGTERM, previous)
        sock.close()
        service.close()


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt
