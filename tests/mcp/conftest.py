"""Fixtures for the MCP server tests: a home, server settings, a log file for server stderr."""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import IO

import anyio
import mcp_types as types
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters
from mcp.shared.message import SessionMessage

from kenning.archive.store import Archive, Message


@pytest.fixture
def home_dir(_hermetic_home: Path) -> Path:
    """The test's home: the same directory the in-process API opens (KENNING_HOME)."""
    return _hermetic_home


@pytest.fixture
def errlog(tmp_path: Path) -> Iterator[IO[str]]:
    """Where stdio servers write stderr (their stdout is the protocol)."""
    with (tmp_path / "server-stderr.log").open("w+", encoding="utf-8") as log:
        yield log


@pytest.fixture
def past_session(home_dir: Path) -> str:
    """An earlier `kenning chat` session about the staging deploy, already in the archive."""
    archive = Archive(home_dir / "state.db")
    sid = archive.start_session("cli", title="staging deploy")
    for role, text in [
        ("user", "how do we deploy to staging?"),
        ("assistant", "Run make deploy-staging on bastion-7; it needs the VPN."),
        ("user", "and the database migration?"),
        ("assistant", "alembic upgrade head, run from the api container."),
    ]:
        archive.append(sid, Message(role, text))  # type: ignore[arg-type]
    archive.close()
    return sid


@asynccontextmanager
async def escaping_stdio_session(
    params: StdioServerParameters, *, errlog: IO[str]
) -> AsyncIterator[ClientSession]:
    """The SDK's client session, its messages written as a JavaScript host writes them.

    ``JSON.stringify`` (and Python's ``json``) write a lone surrogate as the
    escape ``"\\ud800"``; the SDK's own writer refuses to send one at all. So
    this is the SDK's ``ClientSession`` over a pipe whose writer is ``json``.
    """
    env = {**os.environ, **(params.env or {})}
    process = await anyio.open_process([params.command, *params.args], env=env, stderr=errlog)
    assert process.stdin is not None and process.stdout is not None
    stdin, stdout = process.stdin, process.stdout
    inbound_w, inbound = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    outbound, outbound_r = anyio.create_memory_object_stream[SessionMessage](0)

    async def write() -> None:
        async with outbound_r:
            async for sent in outbound_r:
                data = sent.message.model_dump(by_alias=True, exclude_unset=True, mode="json")
                await stdin.send((json.dumps(data) + "\n").encode("utf-8"))

    async def read() -> None:
        pending = b""
        async with inbound_w:
            async for chunk in stdout:
                *lines, pending = (pending + chunk).split(b"\n")
                for line in lines:
                    message = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
                    await inbound_w.send(SessionMessage(message))

    async with process, anyio.create_task_group() as group:
        group.start_soon(write)
        group.start_soon(read)
        async with ClientSession(inbound, outbound) as session:
            await session.initialize()
            yield session
        await stdin.aclose()  # EOF: the server ends its run and exits
        with anyio.fail_after(30):
            await process.wait()
        group.cancel_scope.cancel()
