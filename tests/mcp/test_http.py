"""`kenning mcp --http`: streamable HTTP on loopback, one archive session per MCP session."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import httpx
from click.testing import CliRunner

from kenning.archive.store import Archive
from kenning.cli import cli
from kenning.home import Home
from kenning.mcp.client import HttpServer, http_session, payload
from kenning.memory.store import Target

KEYWORD = {"KENNING_EMBEDDING__PROVIDER": "none"}


def test_clients_over_http_write_to_one_archive_session_per_client_and_day(
    home_dir: Path, past_session: str
) -> None:
    async def client(url: str, fact: str) -> dict[str, Any]:
        async with http_session(url) as session:
            tools = (await session.list_tools()).tools
            assert len(tools) == 8
            assert len((await session.list_resources()).resources) == 2
            assert (await session.list_prompts()).prompts[0].name == "kenning-memory-guide"
            args = {"action": "add", "target": "memory", "content": fact}
            added = payload(await session.call_tool("memory", args))
            assert added["done"]
            found = payload(await session.call_tool("session_search", {"query": "bastion deploy"}))
            return found

    with HttpServer(home_dir, env=KEYWORD) as server:
        assert server.url.startswith("http://127.0.0.1:") and server.url.endswith("/mcp")

        async def both() -> None:
            async with anyio.create_task_group() as group:
                group.start_soon(client, server.url, "The CI runs on Python 3.11")
                group.start_soon(client, server.url, "Releases are tagged vX.Y.Z")

        anyio.run(both)
        found = anyio.run(client, server.url, "The docs live in docs/")
        assert found["sessions"][0]["session_id"] == past_session
    assert server.returncode == 0, "".join(server.log)

    memory = Home.open(home_dir).memory.read(Target.MEMORY).entries
    assert sorted(memory) == sorted(
        ["The CI runs on Python 3.11", "Releases are tagged vX.Y.Z", "The docs live in docs/"]
    )
    archive = Archive(home_dir / "state.db")
    sessions = archive.sessions(sources=["mcp"])
    # Three connections of one client on one day: one session, the three writes
    # (call and result each), and none of the reads.
    (session,) = sessions
    assert session.meta["transport"] == "http" and session.end_reason == "server stopped"
    assert session.message_count == 6
    archive.close()


def test_loopback_server_refuses_foreign_host_headers(home_dir: Path) -> None:
    """DNS rebinding: a web page must not reach the memory through a name that resolves here."""
    request = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    with HttpServer(home_dir, env=KEYWORD) as server:
        response = httpx.post(
            server.url,
            content=json.dumps(request),
            headers={
                "Host": "attacker.example",
                "Content-Type": "application/json",
                "Accept": "application/json, text/event-stream",
            },
        )
        assert response.status_code == 421


def test_binding_beyond_loopback_needs_an_explicit_flag() -> None:
    result = CliRunner().invoke(cli, ["mcp", "--http", "--host", "0.0.0.0"])
    assert result.exit_code == 2
    assert "--allow-remote" in result.output and "without authentication" in result.output


def _initialize(url: str, headers: dict[str, str]) -> httpx.Response:
    request = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "raw", "version": "1"},
        },
    }
    return httpx.post(
        url,
        content=json.dumps(request),
        headers={
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            **headers,
        },
        timeout=20,
    )


def test_only_the_servers_own_origin_may_call_it_from_a_browser(home_dir: Path) -> None:
    """A page served on another local port must not reach the tools (writes included)."""
    with HttpServer(home_dir, "--allow-origin", "HTTPS://Tools.Example.com:443/", env=KEYWORD) as (
        server
    ):
        port = httpx.URL(server.url).port
        assert port is not None

        def status(origin: str | None, host: str | None = None) -> int:
            headers = {"Origin": origin} if origin else {}
            if host:
                headers["Host"] = host
            return _initialize(server.url, headers).status_code

        assert status(None) == 200  # not a browser: no Origin
        assert status(f"http://127.0.0.1:{port}") == 200
        assert status(f"http://localhost:{port}", host=f"localhost:{port}") == 200
        assert status(f"http://localhost:{port}") == 200  # own origin, by its other name
        assert status("https://tools.example.com") == 200  # allowed with --allow-origin
        assert status("http://localhost:9999") == 403  # another local port
        assert status(f"http://127.0.0.1:{port + 1}") == 403
        assert status(f"http://localhost:{port}.attacker.example") == 403  # a prefix is not a match
        assert status(f"https://127.0.0.1:{port}") == 403  # another scheme
        assert status(f"http://attacker.example:{port}") == 403  # another host
        assert status("null") == 403  # a sandboxed page or a file
        assert status(None, host=f"127.0.0.1:{port + 1}") == 421  # Host names another server


def test_allow_origin_must_be_an_origin() -> None:
    for bad in ("localhost:3000/app", "http://localhost:3000/app", "not a url"):
        result = CliRunner().invoke(cli, ["mcp", "--http", "--allow-origin", bad])
        assert result.exit_code == 2, result.output
        assert "is not an origin" in result.output or "is not a URL" in result.output
    remote = ["mcp", "--http", "--host", "0.0.0.0", "--allow-remote"]
    result = CliRunner().invoke(cli, [*remote, "--allow-origin", "http://a.example"])
    assert result.exit_code == 2 and "needs a loopback --host" in result.output
