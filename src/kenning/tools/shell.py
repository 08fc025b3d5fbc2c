"""``shell``: run a command in the working directory, bounded in time and output.

Whether a command may run is decided by ``shell_policy.py`` (config
``agent.shell_approval`` / ``agent.shell_allow``, plus the threat scanner)
and the chat's permission mode (``permissions.py``: a project's "always
allow" lines and prefixes, plan mode's read-only commands, yolo); commands
that need approval are put to ``ToolContext.approve`` and refused when
nobody can be asked.

Invariants: the command runs in its own process group, so a timeout or an
interrupt stops it and everything it started (SIGTERM, then SIGKILL); stdin is
closed and pagers and colours are off, so nothing waits for a keypress; the
result always states the exit code, and output beyond ``OUTPUT_CAP`` keeps its
beginning and end with a note of what was cut. The output pipe is ours: once
the command exits we read what is left for a moment and then close it, so a
background job that still holds it cannot hang the tool.

The command also ends with the Kenning process that started it, even a
SIGKILLed one, so a resumed session never runs it again beside a first run
still going. A watcher in the command's process group (``_LAUNCH``: a
background job of a POSIX ``sh``, which then execs bash with the command, so
the command keeps the pid we wait on) reads a pipe whose write end only
Kenning holds. Kenning writes "done" when the call ends; end of file without
it means Kenning died, and the watcher SIGKILLs the whole group. This is
plain pipe semantics, so it works the same on Linux and macOS, needs no
``prctl(PR_SET_PDEATHSIG)`` (which reaches only the direct child and fires
when the forking thread ends) and no ``preexec_fn`` (unsafe in a threaded
process). Out of reach, by the user's (or a program's) choice: whatever
leaves the group — ``setsid``, a daemon, ``timeout`` without
``--foreground`` — and background jobs still running when the call ends
(their output is not captured either). ``nohup cmd &`` stays in the group, so
it goes with a killed Kenning.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import time
from pathlib import Path

from kenning.tools.base import ApprovalRequest, ToolContext, ToolError, ToolResult, tool
from kenning.tools.permissions import authorize, permissions_of
from kenning.tools.shell_policy import Decision, decide

OUTPUT_CAP = 50_000  # bytes kept: HEAD_BYTES from the start, the rest from the end
HEAD_BYTES = 20_000
MAX_TIMEOUT_S = 3_600
KILL_GRACE_S = 1.0
DRAIN_S = 1.0  # after exit, how long to wait for output still in the pipe
_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07]*\x07")
_QUIET_ENV = {
    "PAGER": "cat",
    "GIT_PAGER": "cat",
    "TERM": "dumb",
    "NO_COLOR": "1",
    "GIT_TERMINAL_PROMPT": "0",
}
_DONE = b"done\n"  # what Kenning tells the watcher when the call ends normally
# sh -c _LAUNCH BASH COMMAND, with the lifeline pipe as stdin. The watcher is a background
# job (so it stays in the group) that ignores the SIGTERM of a timeout (the SIGKILL that
# follows ends it), keeps no copy of the output pipe (which would look like a lingering
# job), and kills the group (``kill 0``) when the lifeline ends without "done". The
# command gets /dev/null as stdin and never sees the lifeline.
_LAUNCH = (
    "exec 3<&0 </dev/null\n"
    "{ trap '' TERM INT HUP; read -r _ <&3 || kill -s KILL 0; } >/dev/null 2>&1 &\n"
    'exec "$0" -c "$1" 3<&-\n'
)


@tool(toolset="shell", exclusive=True, gated=True)
async def shell(command: str, timeout: int | None = None, *, ctx: ToolContext) -> ToolResult:
    """Run a bash command in the working directory; returns its output and exit code.

    stdout and stderr are combined; long output keeps its beginning and end. stdin is
    closed, so interactive programs fail instead of waiting. Depending on the user's
    settings a command may need their approval. Prefer read_file, list_files and
    search_files for looking at files.

    Args:
        command: The command line, e.g. "pytest -q tests/test_x.py".
        timeout: Seconds before the command is stopped (default from config).
    """
    agent = ctx.home.config.agent
    perms = permissions_of(ctx)
    rules = perms.rules if perms is not None and perms.mode != "plan" else None
    # What the user always allowed in this project widens the allow-list; in
    # plan mode only the configured (read-only) list counts.
    allow = (*agent.shell_allow, *(rules.prefixes if rules else ()))
    approval = agent.shell_approval
    if rules is not None and approval == "ask" and rules.prefixes:
        approval = "allowlist"
    decision = decide(command, approval, allow)
    if rules is not None and decision.action == "ask" and command.strip() in rules.exact:
        decision = Decision("run", "")
    if decision.action == "refuse":
        raise ToolError(
            f"the command was not run: {decision.reason}.",
            "do the work with the file tools, or tell the user what to run. They can allow "
            'shell commands by setting agent.shell_approval to "ask" or "allowlist" in '
            "config.toml.",
        )
    await authorize(ctx, ApprovalRequest(command, decision.reason), safe=decision.action == "run")
    limit = min(max(timeout or agent.shell_timeout_s, 1), MAX_TIMEOUT_S)
    if not ctx.cwd.is_dir():
        raise ToolError(f"the working directory {ctx.cwd} does not exist.", None)
    return await run_command(command, ctx.cwd, limit)


async def run_command(command: str, cwd: Path, timeout_s: float) -> ToolResult:
    """Run ``command`` with bash in its own process group; the result for the model."""
    lifeline_read, lifeline = os.pipe()  # both close-on-exec: no other child inherits them
    try:
        return await _run(command, cwd, timeout_s, lifeline_read)
    finally:
        with contextlib.suppress(OSError):  # the watcher is gone if the group was killed
            os.write(lifeline, _DONE)
        os.close(lifeline)


async def _run(command: str, cwd: Path, timeout_s: float, lifeline_read: int) -> ToolResult:
    read_fd, write_fd = os.pipe()
    started = time.monotonic()
    try:
        proc = await asyncio.create_subprocess_exec(
            "/bin/sh",
            "-c",
            _LAUNCH,
            "/bin/bash" if Path("/bin/bash").exists() else "/bin/sh",
            command,
            cwd=cwd,
            stdin=lifeline_read,
            stdout=write_fd,
            stderr=write_fd,
            start_new_session=True,  # its own process group: killpg reaches its children
            env={**os.environ, **_QUIET_ENV},
        )
    except BaseException:
        os.close(read_fd)
        raise
    finally:
        os.close(write_fd)  # the child has its copy; ours would keep the pipe open forever
        os.close(lifeline_read)  # the watcher's end: only the write end must stay here
    pipe = os.fdopen(read_fd, "rb", buffering=0)
    capture = _Capture()
    reader = asyncio.StreamReader()
    transport: asyncio.BaseTransport | None = None
    pump: asyncio.Task[None] | None = None
    timed_out = False
    lingering = False
    try:
        transport, _ = await asyncio.get_running_loop().connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(reader), pipe
        )
        pump = asyncio.create_task(_pump(reader, capture))
        try:
            await asyncio.wait_for(proc.wait(), timeout_s)
        except TimeoutError:
            timed_out = True
            await _stop(proc)
        try:
            await asyncio.wait_for(asyncio.shield(pump), DRAIN_S)
        except TimeoutError:
            lingering = True  # a background job still holds the pipe
    except BaseException:  # cancelled (an interrupt) or broken: never leave it running
        await asyncio.shield(_stop(proc))
        raise
    finally:
        if pump is not None:
            pump.cancel()
        if transport is not None:
            transport.close()  # closes the pipe too
        else:
            pipe.close()
    elapsed = time.monotonic() - started
    return _result(capture, proc.returncode, elapsed, timed_out, timeout_s, lingering)


async def _stop(proc: asyncio.subprocess.Process) -> None:
    """SIGTERM the process group, then SIGKILL whatever is left."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, sig)
        try:
            await asyncio.wait_for(proc.wait(), KILL_GRACE_S)
            if sig == signal.SIGTERM:
                # The leader is gone; children that ignored SIGTERM must go too.
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(proc.pid, signal.SIGKILL)
            return
        except TimeoutError:
            continue


async def _pump(reader: asyncio.StreamReader, capture: _Capture) -> None:
    while chunk := await reader.read(65_536):
        capture.add(chunk)


class _Capture:
    """The first HEAD_BYTES and the last OUTPUT_CAP - HEAD_BYTES bytes, and the total."""

    def __init__(self) -> None:
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0

    def add(self, chunk: bytes) -> None:
        self.total += len(chunk)
        room = HEAD_BYTES - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        self.tail += chunk
        keep = OUTPUT_CAP - HEAD_BYTES
        if len(self.tail) > 2 * keep:  # trim in steps, not on every chunk
            del self.tail[:-keep]

    def text(self) -> tuple[str, int]:
        """The kept output as text, and how many bytes were left out of the middle."""
        keep = OUTPUT_CAP - HEAD_BYTES
        tail = bytes(self.tail[-keep:])
        omitted = self.total - len(self.head) - len(tail)
        head = _clean(bytes(self.head).decode("utf-8", errors="replace"))
        if omitted <= 0:
            return head + _clean(tail.decode("utf-8", errors="replace")), 0
        marker = f"\n[… {omitted:,} bytes of output omitted here …]\n"
        return head + marker + _clean(tail.decode("utf-8", errors="replace")), omitted


def _clean(text: str) -> str:
    """No colour codes; a progress bar redrawn with \\r keeps only its last state."""
    text = _ANSI.sub("", text).replace("\r\n", "\n")
    return "\n".join(line.rsplit("\r", 1)[-1] for line in text.split("\n"))


def _result(
    capture: _Capture,
    code: int | None,
    elapsed: float,
    timed_out: bool,
    timeout_s: float,
    lingering: bool,
) -> ToolResult:
    output, omitted = capture.text()
    body = output.rstrip("\n") or "(no output)"
    notes: list[str] = []
    if omitted:
        notes.append(
            f"Output was {capture.total:,} bytes; the middle was cut. To see all of it, write it "
            "to a file (command > out.log 2>&1) and read or search that file."
        )
    if lingering:
        notes.append(
            "Background processes still held the output when the command ended; their later "
            "output is not captured. Redirect it to a file (cmd > log 2>&1 &) to keep it."
        )
    meta = {"exit_code": code, "seconds": round(elapsed, 3), "timed_out": timed_out}
    if timed_out:
        status = (
            f"[timed out after {timeout_s:g} s: the command and everything it started were stopped]"
        )
        notes.append(
            "Run something quicker, pass a larger timeout, or run it in the background with "
            "its output in a file."
        )
        return ToolResult("\n".join([body, status, *notes]), ok=False, meta=meta)
    if code is not None and code < 0:
        status = f"[killed by signal {-code} after {elapsed:.1f} s]"
    else:
        status = f"[exit code {code} · {elapsed:.1f} s]"
    return ToolResult("\n".join([body, status, *notes]), ok=code == 0, meta=meta)
