"""The parent's side of one kernel process: start it, run cells, interrupt, stop.

The kernel (``kernel_main.py``) is a plain ``python`` subprocess in its own
process group, with two pipes of our own for the protocol (JSON lines), so
the user's stdout and stderr never mix with it. Everything here blocks and
is meant for a worker thread (``Workspace`` runs it via ``asyncio.to_thread``):
it does not depend on the event loop that happens to be running, so one
kernel outlives as many ``asyncio.run`` calls as its session makes.

A cell that passes its timeout, or whose caller cancels, gets SIGINT (a
KeyboardInterrupt inside the cell; the kernel and its variables stay). One
that ignores it for ``KILL_GRACE_S`` is killed: the next cell starts a fresh
kernel from the last snapshot, so only the running cell is lost.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

KERNEL_SCRIPT = Path(__file__).with_name("kernel_main.py")
MIB = 1 << 20
START_TIMEOUT_S = 60.0
KILL_GRACE_S = 3.0
POLL_S = 0.25  # how often a waiting cell looks at its cancel flag

Status = Literal["ok", "error", "interrupted", "timeout", "died"]
# serve(method, args, deadline) -> a JSON value; raises HostRefused with the reason.
HostServer = Callable[[str, dict[str, Any], float], Any]


class KernelError(RuntimeError):
    """The kernel could not be started or stopped answering; the message says why."""


class HostRefused(Exception):
    """A host request the parent refused or failed; the cell sees a HostError."""


@dataclass(frozen=True)
class Limits:
    """What a snapshot may hold: the issue's 256 MiB in all, 16 MiB per variable."""

    total: int = 256 * MIB
    per_var: int = 16 * MIB


@dataclass(frozen=True)
class Variable:
    name: str
    type: str
    bytes: int

    @classmethod
    def parse(cls, raw: object) -> list[Variable]:
        if not isinstance(raw, list):
            return []
        return [
            cls(str(v.get("name")), str(v.get("type")), int(v.get("bytes") or 0))
            for v in raw
            if isinstance(v, dict)
        ]


@dataclass
class CellResult:
    status: Status
    output: str = ""
    output_bytes: int = 0
    result: str | None = None
    error: str | None = None
    skipped: dict[str, str] = field(default_factory=dict)
    snapshot_error: str | None = None
    exec_s: float = 0.0
    snapshot_s: float = 0.0
    snapshot_bytes: int = 0
    seconds: float = 0.0  # wall time in the parent, round trip included


@dataclass
class Ready:
    """What a starting kernel restored from the snapshot."""

    restored: list[str]
    failed: dict[str, str]
    skipped: dict[str, str]
    seconds: float


class Kernel:
    def __init__(
        self,
        state_dir: Path,
        cwd: Path,
        *,
        limits: Limits | None = None,
        python: str | None = None,
    ) -> None:
        self.state_dir = state_dir
        self.cwd = cwd
        self.limits = limits or Limits()
        self.python = python or sys.executable
        self.variables: list[Variable] = []
        self.cells = 0
        self._proc: subprocess.Popen[bytes] | None = None
        self._cmd_fd = -1
        self._event_fd = -1
        self._buffer = bytearray()  # event bytes read but not yet parsed
        self._lock = threading.Lock()  # one cell at a time, whatever the caller does

    @property
    def alive(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    # -- lifecycle -------------------------------------------------------------------------

    def start(self) -> Ready:
        """Spawn the kernel and wait until it has restored the snapshot."""
        self.close()
        self.state_dir.mkdir(parents=True, exist_ok=True)
        cmd_r, cmd_w = os.pipe()
        event_r, event_w = os.pipe()
        started = time.monotonic()
        limits = json.dumps({"total": self.limits.total, "per_var": self.limits.per_var})
        try:
            with open(self.state_dir / "kernel.log", "ab") as log:
                self._proc = subprocess.Popen(
                    [
                        self.python,
                        str(KERNEL_SCRIPT),
                        str(cmd_r),
                        str(event_w),
                        str(self.state_dir),
                        limits,
                    ],
                    cwd=self.cwd,
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=log,
                    pass_fds=(cmd_r, event_w),
                    start_new_session=True,  # the terminal's Ctrl-C is ours to pass on
                )
        finally:
            os.close(cmd_r)
            os.close(event_w)
        self._cmd_fd, self._event_fd, self._buffer = cmd_w, event_r, bytearray()
        try:
            ready = self._next_event(START_TIMEOUT_S)
        except KernelError:
            self.close()
            raise
        if ready is None or ready.get("op") != "ready":
            self.close()
            raise KernelError(
                f"the Python kernel did not start within {START_TIMEOUT_S:g} s; see "
                f"{self.state_dir / 'kernel.log'}"
            )
        self.variables = Variable.parse(ready.get("vars"))
        return Ready(
            [str(n) for n in ready.get("restored") or []],
            {str(k): str(v) for k, v in (ready.get("failed") or {}).items()},
            {str(k): str(v) for k, v in (ready.get("skipped") or {}).items()},
            time.monotonic() - started,
        )

    def close(self) -> None:
        """End the kernel: end of file on its commands, then SIGKILL if it lingers."""
        proc, self._proc = self._proc, None
        for fd in (self._cmd_fd, self._event_fd):
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self._cmd_fd = self._event_fd = -1
        if proc is None:
            return
        try:
            proc.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=2.0)

    def interrupt(self) -> None:
        """SIGINT to the kernel: the running cell raises KeyboardInterrupt."""
        if self._proc is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(self._proc.pid, signal.SIGINT)

    def kill(self) -> None:
        if self._proc is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self._proc.pid, signal.SIGKILL)
        self.close()

    # -- cells -----------------------------------------------------------------------------

    def run_cell(
        self,
        code: str,
        timeout_s: float,
        serve: HostServer | None = None,
        cancel: threading.Event | None = None,
    ) -> CellResult:
        """Run one cell to its end; host requests are answered with ``serve`` meanwhile."""
        with self._lock:
            if not self.alive:
                raise KernelError("the kernel is not running")
            started = time.monotonic()
            self.cells += 1
            self._send({"op": "exec", "code": code, "cell": self.cells})
            result = self._wait(started + timeout_s, serve, cancel)
            result.seconds = time.monotonic() - started
            return result

    def _wait(
        self, deadline: float, serve: HostServer | None, cancel: threading.Event | None
    ) -> CellResult:
        stopped_at: float | None = None
        why: Status = "interrupted"
        while True:
            now = time.monotonic()
            if stopped_at is None and (now >= deadline or (cancel is not None and cancel.is_set())):
                why = "timeout" if now >= deadline else "interrupted"
                stopped_at = now
                self.interrupt()
            if stopped_at is not None and now - stopped_at > KILL_GRACE_S:
                self.kill()
                return CellResult(
                    why,
                    error=f"the cell ignored the interrupt for {KILL_GRACE_S:g} s, so the "
                    "kernel was stopped; the next cell starts a new kernel from the snapshot "
                    "taken after the last successful cell.",
                )
            try:
                event = self._next_event(POLL_S)
            except KernelError as exc:
                code = self._proc.wait(timeout=5) if self._proc is not None else None
                self.close()
                return CellResult("died", error=f"{exc} (exit status {code})")
            if event is None:
                continue
            op = event.get("op")
            if op == "host":
                self._answer(event, serve, deadline)
            elif op == "done":
                return self._finished(event, why if stopped_at is not None else None)

    def _answer(self, event: dict[str, Any], serve: HostServer | None, deadline: float) -> None:
        reply: dict[str, Any] = {"op": "reply", "id": event.get("id")}
        args = event.get("args")
        try:
            if serve is None:
                raise HostRefused("no host API in this context")
            value = serve(
                str(event.get("method")), args if isinstance(args, dict) else {}, deadline
            )
            reply.update(ok=True, value=value)
        except HostRefused as exc:
            reply.update(ok=False, error=str(exc))
        except Exception as exc:  # the cell gets the error; the parent goes on
            reply.update(ok=False, error=f"{type(exc).__name__}: {exc}")
        self._send(reply)

    def _finished(self, event: dict[str, Any], stopped: Status | None) -> CellResult:
        status = str(event.get("status"))
        if status == "interrupted" and stopped is not None:
            status = stopped  # "timeout" when the deadline sent the interrupt
        self.variables = Variable.parse(event.get("vars"))
        skipped = event.get("skipped") or {}
        return CellResult(
            status if status in ("ok", "error", "interrupted", "timeout") else "error",  # type: ignore[arg-type]
            output=str(event.get("output") or ""),
            output_bytes=int(event.get("output_bytes") or 0),
            result=event.get("result"),
            error=event.get("error"),
            skipped={str(k): str(v) for k, v in skipped.items()},
            snapshot_error=event.get("snapshot_error"),
            exec_s=float(event.get("exec_s") or 0.0),
            snapshot_s=float(event.get("snapshot_s") or 0.0),
            snapshot_bytes=int(event.get("snapshot_bytes") or 0),
        )

    # -- the pipes -------------------------------------------------------------------------

    def _send(self, message: dict[str, Any]) -> None:
        data = memoryview((json.dumps(message, default=repr) + "\n").encode())
        try:
            while data:
                data = data[os.write(self._cmd_fd, data) :]
        except OSError as exc:
            raise KernelError(f"the kernel stopped listening ({exc})") from exc

    def _next_event(self, wait_s: float) -> dict[str, Any] | None:
        """The next event, None if none came within ``wait_s``; KernelError at end of file."""
        until = time.monotonic() + wait_s
        searched = 0  # a big message (a host write) is scanned once, not once per chunk
        while (end := self._buffer.find(b"\n", searched)) < 0:
            searched = len(self._buffer)
            left = until - time.monotonic()
            if left <= 0:
                return None
            ready, _, _ = select.select([self._event_fd], [], [], left)
            if not ready:
                return None
            chunk = os.read(self._event_fd, 1 << 20)
            if not chunk:
                raise KernelError("the kernel process exited")
            self._buffer += chunk
        line = bytes(self._buffer[:end])
        del self._buffer[: end + 1]
        message = json.loads(line)
        return message if isinstance(message, dict) else {}
