"""The ``python`` tool: one persistent kernel per session, its state kept across restarts.

Working data lives in the kernel, not the context: the model runs a cell,
the variables stay, and only what the cell prints (and the repr of its last
expression) comes back. ``Workspaces`` owns the kernels of a tool registry,
one per session id, and their state directories under
``<home>/cache/workspaces/<session>/`` (``cache/`` is outside the home's git
history in every home, old or new, which is where a binary snapshot belongs).

A kernel starts on the first cell of a session, restoring the snapshot if
there is one (a resumed session, a restarted Kenning, a kernel that died),
and the result of that cell says what came back and what did not. The tool
is exclusive: it never runs beside another call of its batch, so two cells
can never race on one namespace.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import re
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from kenning.tools import permissions
from kenning.tools.base import ApprovalRequest, Tool, ToolContext, ToolError, ToolResult
from kenning.workspace import policy
from kenning.workspace.host import HostApi
from kenning.workspace.kernel import (
    KILL_GRACE_S,
    CellResult,
    Kernel,
    KernelError,
    Limits,
    Ready,
    Variable,
)
from kenning.workspace.snapshot import describe, read_header

if TYPE_CHECKING:
    from kenning.home import Home

MAX_TIMEOUT_S = 3_600
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


@dataclass
class Workspace:
    session_id: str
    kernel: Kernel
    skipped: dict[str, str] = field(default_factory=dict)


class Workspaces:
    """The kernels of one tool registry, by session id; ``close`` ends them all."""

    def __init__(self, home: Home, *, limits: Limits | None = None) -> None:
        self.home = home
        self.limits = limits or Limits()
        self._spaces: dict[str, Workspace] = {}
        self._lock = threading.Lock()

    def state_dir(self, session_id: str) -> Path:
        name = _UNSAFE.sub("-", session_id).strip("-.") or "no-session"
        return self.home.root / "cache" / "workspaces" / name

    def get(self, session_id: str, cwd: Path) -> Workspace:
        with self._lock:
            space = self._spaces.get(session_id)
            if space is None:
                kernel = Kernel(self.state_dir(session_id), cwd, limits=self.limits)
                space = self._spaces[session_id] = Workspace(session_id, kernel)
            return space

    def variables(self, session_id: str) -> tuple[list[Variable], dict[str, str]]:
        """What the session's kernel holds: live if it runs, else from its snapshot."""
        space = self._spaces.get(session_id)
        if space is not None and space.kernel.alive:
            return space.kernel.variables, space.skipped
        return read_header(self.state_dir(session_id))

    def note(self, session_id: str) -> str:
        """For the compaction summary: the variables that survive it, by name, type and size."""
        variables, skipped = self.variables(session_id)
        listing = describe(variables, skipped)
        if not listing:
            return ""
        return (
            "Python workspace: the kernel keeps these variables across this compaction "
            "(use them in the python tool instead of recomputing them):\n" + listing
        )

    def close(self) -> None:
        with self._lock:
            spaces, self._spaces = list(self._spaces.values()), {}
        for space in spaces:
            space.kernel.close()

    async def run(self, ctx: ToolContext, code: str, timeout_s: float, restart: bool) -> ToolResult:
        if ctx.session_id is None:
            raise ToolError("the python tool needs a session", None)
        if not ctx.cwd.is_dir():
            raise ToolError(f"the working directory {ctx.cwd} does not exist.", None)
        space = self.get(ctx.session_id, ctx.cwd)
        kernel = space.kernel
        ready: Ready | None = None
        if restart:
            await asyncio.to_thread(kernel.close)
        if not kernel.alive:
            kernel.cwd = ctx.cwd
            try:
                ready = await asyncio.to_thread(kernel.start)
            except (KernelError, OSError) as exc:
                raise ToolError(
                    f"the Python kernel could not be started ({exc}).",
                    "try again once; if it keeps failing, tell the user.",
                ) from exc
            space.skipped = dict(ready.skipped)
        if not code.strip():
            return ToolResult(_restored_text(ready) or "The kernel is running.")
        cancel = threading.Event()
        host = HostApi(ctx, asyncio.get_running_loop(), cancel)
        cell = asyncio.ensure_future(
            asyncio.to_thread(kernel.run_cell, code, timeout_s, host.serve, cancel)
        )
        try:
            result = await asyncio.shield(cell)
        except asyncio.CancelledError:
            cancel.set()  # SIGINT to the cell; the kernel and its variables stay
            with contextlib.suppress(Exception):
                await asyncio.wait_for(cell, KILL_GRACE_S + 5)
            raise
        if result.status == "ok":
            space.skipped = dict(result.skipped)
        return _result(result, ready, timeout_s)


def python_tool(workspaces: Workspaces) -> Tool:
    async def python(
        code: str, timeout: int | None = None, restart: bool = False, *, ctx: ToolContext
    ) -> ToolResult:
        """Run Python code in this session's persistent kernel; variables stay between calls.

        Keep working data here instead of in the conversation: load files, parse, filter
        and compute in code, and print only what you need to see. The value of the last
        expression is shown (as repr). Variables, imports and functions survive later
        calls, compaction and restarts (what can be serialised; you are told what was
        restored). The working directory is the session's. A `kenning` object offers
        kenning.search(query) over past sessions, kenning.memory(path),
        kenning.memory_search(query), kenning.read(path), kenning.write(path, text) and
        kenning.delegate(task) (a subagent's answer as a string). Depending on the
        user's settings a cell may need their approval.

        Args:
            code: The cell to run, e.g. "rows = json.load(open('data.json'))\\nlen(rows)".
            timeout: Seconds before the cell is interrupted (default from config).
            restart: Start a fresh kernel from the last snapshot before running the code.
        """
        agent = ctx.home.config.agent
        decision = policy.decide(code, agent.python_approval, agent.python_allow)
        if restart and not code.strip() and agent.python_approval != "never":
            decision = policy.Decision("run", "")  # a restart alone runs no new code
        if decision.action == "refuse":
            raise ToolError(
                f"the code was not run: {decision.reason}.",
                "do the work with the other tools, or tell the user. They can allow Python "
                'by setting agent.python_approval to "ask" or "allowlist" in config.toml.',
            )
        if decision.action == "ask":
            if permissions.permissions_of(ctx) is not None:
                # In a chat the permission mode decides (yolo runs it, ask puts it to the
                # user, "always" is remembered per project), as for any other tool.
                await permissions.authorize(
                    ctx, ApprovalRequest(code, decision.reason, kind="python")
                )
            else:
                await _approve(code, decision.reason, ctx)
        limit = min(max(timeout or agent.python_timeout_s, 1), MAX_TIMEOUT_S)
        return await workspaces.run(ctx, code, limit, restart)

    made = Tool.from_function(python, toolset="python", exclusive=True)
    return dataclasses.replace(made, close=workspaces.close)


async def _approve(code: str, reason: str, ctx: ToolContext) -> None:
    if ctx.approve is None:
        raise ToolError(
            f"the code needs the user's approval ({reason}), and nobody can be asked in this "
            f"context ({ctx.purpose}).",
            "use the other tools instead, or tell the user what to run. To let such cells "
            'run without asking, the user can set agent.python_approval = "allowlist" and '
            "list the modules in agent.python_allow.",
        )
    try:
        approved = await ctx.approve(ApprovalRequest(code, reason))
    except asyncio.CancelledError:
        raise
    except Exception as exc:
        raise ToolError(f"asking for approval failed ({exc}); the code was not run.", None) from exc
    if not approved:
        raise ToolError(
            "the user declined to run this code.",
            "do not run it again. Ask the user how they want to proceed, or take another approach.",
        )


def _restored_text(ready: Ready | None) -> str:
    if ready is None or not (ready.restored or ready.failed or ready.skipped):
        return ""
    parts = []
    if ready.restored:
        parts.append(f"restored from the snapshot: {', '.join(ready.restored)}")
    lost = {**ready.skipped, **ready.failed}
    if lost:
        parts.append("not restored: " + "; ".join(f"{k} ({v})" for k, v in lost.items()))
    return f"[new kernel, {' · '.join(parts)}]"


def _result(cell: CellResult, ready: Ready | None, timeout_s: float) -> ToolResult:
    parts: list[str] = []
    restored = _restored_text(ready)
    if restored:
        parts.append(restored)
    if cell.output.strip():
        parts.append(cell.output.rstrip("\n"))
    if cell.result is not None:
        parts.append(f"Out: {cell.result}")
    if cell.error:
        parts.append(cell.error.rstrip("\n"))
    meta = {"status": cell.status, "seconds": round(cell.seconds, 3)}
    if cell.status == "ok":
        status = f"[ok · {cell.seconds:.1f} s]"
        if not parts:
            status = f"[ok · {cell.seconds:.1f} s · no output; end with an expression to see it]"
    elif cell.status == "error":
        status = "[the cell raised an exception; the variables set before it stay]"
    elif cell.status == "timeout":
        status = (
            f"[timed out after {timeout_s:g} s and was interrupted; the kernel and its variables "
            "are kept. Make the work smaller, or pass a larger timeout]"
        )
    elif cell.status == "interrupted":
        status = "[interrupted; the kernel and its variables are kept]"
    else:
        status = (
            "[the kernel died during this cell; the next call starts a new one from the "
            "snapshot taken after the last successful cell]"
        )
    parts.append(status)
    if cell.skipped:
        names = "; ".join(f"{k}: {v}" for k, v in cell.skipped.items())
        parts.append(f"Not saved in the snapshot (lost if the kernel restarts): {names}")
    if cell.snapshot_error:
        parts.append(f"The snapshot could not be written ({cell.snapshot_error}).")
    return ToolResult("\n".join(parts), ok=cell.status == "ok", meta=meta)
