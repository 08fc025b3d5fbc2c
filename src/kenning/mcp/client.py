"""Starting a ``kenning mcp`` server and talking to it with the SDK's own client.

What a host does, done from Python: launch the server as a subprocess (stdio)
or connect to one over streamable HTTP, hold the handshake, call tools.
Used by the benchmark (``kenning bench mcp``), the tests and scripts, so
they all measure and exercise the server exactly as a host reaches it — a
real process, a real pipe or socket, the SDK's real client.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from types import TracebackType
from typing import Any, TextIO

import mcp_types as types
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

_URL = re.compile(r"serving streamable HTTP at (http://\S+)")


def kenning_argv(*args: str) -> list[str]:
    """``python -m kenning ARGS`` with this interpreter: works without a PATH."""
    return [sys.executable, "-m", "kenning", *args]


def stdio_params(
    home: Path,
    *mcp_args: str,
    global_args: Sequence[str] = (),
    env: Mapping[str, str] | None = None,
) -> StdioServerParameters:
    """How a host launches ``kenning [GLOBAL_ARGS] mcp [MCP_ARGS]`` on ``home``.

    The SDK starts the server with a minimal environment (HOME, PATH, …);
    ``PYTHONPATH`` is passed on so the server imports the same kenning as
    this process (a source checkout, not whatever is installed).
    """
    argv = kenning_argv(*global_args, "mcp", *mcp_args)
    inherited = {"PYTHONPATH": os.environ["PYTHONPATH"]} if "PYTHONPATH" in os.environ else {}
    return StdioServerParameters(
        command=argv[0],
        args=argv[1:],
        env={**inherited, "KENNING_HOME": str(home), **(env or {})},
    )


@asynccontextmanager
async def stdio_session(
    params: StdioServerParameters, *, errlog: TextIO | None = None
) -> AsyncIterator[ClientSession]:
    """An initialised client session with a freshly launched server; the server stops on exit."""
    async with (
        stdio_client(params, errlog=errlog or sys.stderr) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        yield session


@asynccontextmanager
async def http_session(url: str) -> AsyncIterator[ClientSession]:
    """An initialised client session over streamable HTTP (one MCP session id)."""
    async with (
        streamable_http_client(url) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        yield session


def payload(result: types.CallToolResult) -> dict[str, Any]:
    """The result dict a tool returned, from the text the model reads."""
    block = result.content[0]
    assert isinstance(block, types.TextContent), f"unexpected content {block!r}"
    data: dict[str, Any] = json.loads(block.text)
    return data


class HttpServer:
    """``kenning mcp --http --port 0`` as a subprocess; ``url`` is known once it listens.

    Its stderr is drained by a thread (a full pipe would stall the server) and
    kept in ``log``. Leaving the ``with`` block sends SIGTERM and waits.
    """

    def __init__(
        self,
        home: Path,
        *mcp_args: str,
        global_args: Sequence[str] = (),
        env: Mapping[str, str] | None = None,
        timeout: float = 30.0,
    ) -> None:
        self.argv = kenning_argv(*global_args, "mcp", "--http", "--port", "0", *mcp_args)
        self.env = {**os.environ, "KENNING_HOME": str(home), **(env or {})}
        self.timeout = timeout
        self.url = ""
        self.log: list[str] = []
        self.returncode: int | None = None
        self._process: subprocess.Popen[str] | None = None
        self._reader: threading.Thread | None = None
        self._ready = threading.Event()

    def __enter__(self) -> HttpServer:
        self._process = subprocess.Popen(
            self.argv,
            env=self.env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        self._reader = threading.Thread(target=self._drain, daemon=True)
        self._reader.start()
        if not self._ready.wait(self.timeout) or not self.url:
            self.__exit__(None, None, None)
            raise RuntimeError("kenning mcp --http did not start:\n" + "".join(self.log))
        return self

    def _drain(self) -> None:
        assert self._process is not None and self._process.stderr is not None
        for line in self._process.stderr:
            self.log.append(line)
            found = _URL.search(line)
            if found and not self.url:
                self.url = found.group(1)
                self._ready.set()
        self._ready.set()  # the process ended before listening

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        process = self._process
        if process is None:
            return
        if process.poll() is None:
            process.terminate()
        try:
            self.returncode = process.wait(self.timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            self.returncode = process.wait(self.timeout)
        if self._reader is not None:
            self._reader.join(self.timeout)
        if process.stderr is not None:
            process.stderr.close()
        self._process = None


def wait_for(predicate: Any, timeout: float = 10.0, interval: float = 0.02) -> bool:
    """Poll ``predicate()`` until it is true or ``timeout`` passes."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(interval)
    return bool(predicate())
