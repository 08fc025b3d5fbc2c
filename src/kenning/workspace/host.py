"""The parent's answers to the kernel's ``kenning.*`` requests, served while a cell runs.

The kernel thread calls ``HostApi.serve`` (blocking); each request runs as a
coroutine on the session's event loop, so it uses the same tools, archive
connection and subagent gate as the model's own calls, under the same rules:
reads follow ``check_read``, writes go through ``write_file`` (workspace only,
never the Kenning home), memory reads through ``memory_get``. The value goes
back to the cell as plain JSON (lists, dicts, strings); a refusal becomes a
``HostError`` there with the tool's message.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
import time
from typing import TYPE_CHECKING, Any

from kenning.memory.memory_get import MemoryGetError
from kenning.tools.base import ToolContext, ToolError
from kenning.tools.memory_tools import memory_reader
from kenning.tools.paths import check_read, display, looks_binary, missing
from kenning.workspace.kernel import POLL_S, HostRefused

if TYPE_CHECKING:
    from kenning.agent.loop import AgentSession

READ_MAX_BYTES = 64 << 20  # a value in the kernel, not the context: generous, still bounded


class HostApi:
    def __init__(
        self,
        ctx: ToolContext,
        loop: asyncio.AbstractEventLoop,
        cancel: threading.Event | None = None,
    ) -> None:
        self.ctx = ctx
        self.loop = loop
        self.cancel = cancel or threading.Event()  # set when the cell is being interrupted
        self.calls = 0

    def serve(self, method: str, args: dict[str, Any], deadline: float) -> Any:
        """Run one request on the loop and wait for it, until the cell's deadline or interrupt."""
        handler = getattr(self, f"_{method}", None)
        if method.startswith("_") or handler is None:
            raise HostRefused(f"unknown host method {method!r}")
        self.calls += 1
        future = asyncio.run_coroutine_threadsafe(handler(**args), self.loop)
        while True:
            left = deadline - time.monotonic()
            try:
                return future.result(timeout=max(0.0, min(POLL_S, left)))
            except concurrent.futures.TimeoutError:
                if left > POLL_S and not self.cancel.is_set():
                    continue
                future.cancel()  # a subagent mid-run is cancelled like any interrupted turn
                why = "was interrupted" if self.cancel.is_set() else "passed the cell's timeout"
                raise HostRefused(f"kenning.{method} {why}") from None
            except concurrent.futures.CancelledError:
                raise HostRefused(f"kenning.{method} was cancelled") from None
            except ToolError as exc:
                raise HostRefused(exc.message) from None
            except TypeError as exc:  # wrong arguments from the cell
                raise HostRefused(f"kenning.{method}: {exc}") from None

    # -- the methods (each is kenning.<name> in the kernel) -------------------------------

    async def _search(self, query: str, limit: int = 10) -> list[Any]:
        data = await self._tool("session_search", {"query": query, "limit": limit})
        sessions = data.get("sessions") if isinstance(data, dict) else None
        return list(sessions or [])

    async def _memory_search(self, query: str, limit: int = 10) -> list[Any]:
        data = await self._tool("memory_search", {"query": query, "limit": limit})
        passages = data.get("passages") if isinstance(data, dict) else None
        return list(passages or [])

    async def _memory(self, path: str = "memories/MEMORY.md") -> str:
        return await asyncio.to_thread(self._memory_text, path)

    async def _read(self, path: str) -> str:
        return await asyncio.to_thread(self._read_text, path)

    async def _write(self, path: str, text: str) -> str:
        result = await self._tool("write_file", {"path": path, "content": text})
        return str(result)

    async def _delegate(self, task: str, background: str = "") -> str:
        from kenning.agent.delegate import run_subagent  # the agent layer sits above tools

        parent = self._agent()
        if parent.depth >= 1:
            raise HostRefused("a subagent cannot delegate further")
        if not task.strip():
            raise HostRefused("the task is empty: say what the subagent must achieve")
        child_id, _, ended = await run_subagent(parent, task, background)
        if ended.reason != "final":
            raise HostRefused(
                f"the subagent (session {child_id}) did not finish: {ended.error or ended.reason}"
            )
        return ended.answer

    # -- helpers ---------------------------------------------------------------------------

    def _agent(self) -> AgentSession:
        from kenning.agent.loop import AgentSession

        agent = self.ctx.extras.get("agent")
        if not isinstance(agent, AgentSession):
            raise HostRefused("this needs a running agent session")
        return agent

    async def _tool(self, name: str, args: dict[str, Any]) -> Any:
        """Call one of the session's tools; its data (or text), or HostRefused with its error."""
        tool = self._agent().tools.get(name)
        if tool is None:
            raise HostRefused(f"the {name} tool is not available in this session")
        result = await tool.run(args, self.ctx)
        if not result.ok:
            raise HostRefused(result.text)
        return result.data if result.data is not None else result.text

    def _memory_text(self, raw: str) -> str:
        """The whole file, unnumbered (memory_get shows numbered lines for the context)."""
        reader = memory_reader(self.ctx.home)
        try:
            path = reader.resolve(raw)
        except MemoryGetError as exc:
            raise HostRefused(str(exc)) from None
        if not path.is_file():
            raise HostRefused(f"{raw} does not exist (yet)")
        return path.read_text(encoding="utf-8", errors="replace")

    def _read_text(self, raw: str) -> str:
        target = self.ctx.resolve(raw)
        check_read(target, self.ctx)
        if not target.is_file():
            raise missing(target, self.ctx)
        size = target.stat().st_size
        if size > READ_MAX_BYTES:
            raise HostRefused(
                f"{display(target, self.ctx)} is {size:,} bytes, over {READ_MAX_BYTES:,}; "
                "open it with open() in the cell and read it in pieces"
            )
        data = target.read_bytes()
        if looks_binary(data[:8192]):
            raise HostRefused(f"{display(target, self.ctx)} is binary; open it with open(…, 'rb')")
        return data.decode("utf-8", errors="replace")
