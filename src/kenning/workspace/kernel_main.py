"""The Python workspace kernel: the child process that holds the model's variables.

Run as a script (``python kernel_main.py CMD_FD EVENT_FD STATE_DIR LIMITS``) by
``kenning.workspace.kernel``; it imports nothing from Kenning, so it starts in
tens of milliseconds and user code sees a plain interpreter whose ``__main__``
is the user namespace (functions defined there pickle by value with dill).

The protocol is one JSON object per line: commands come on CMD_FD, events go
out on EVENT_FD (stdout and stderr are the user's). Commands: ``exec`` (run a
cell), ``reply`` (the answer to a host request), ``vars`` (list variables).
Events: ``ready`` (after the restore), ``host`` (a request from the ``kenning``
object to the parent, answered by ``reply``), ``done`` (a cell ended).
End of file on CMD_FD ends the kernel: a parent that dies takes it along.

A cell's output goes to fds 1 and 2, redirected per cell into an unlinked
temp file, so ``print`` and programs the cell starts land in one stream, in
order; the kernel sends its head and tail, never all of it.

SIGINT interrupts the running cell (KeyboardInterrupt) and nothing else: the
handler raises only while user code runs, so a late interrupt can never tear
a protocol message or a snapshot.

After each successful cell the variables are written to ``STATE_DIR/snapshot``
(a temp file, fsynced, renamed over the old one: a crash at any point leaves
the previous complete snapshot). Format: one JSON header line (version,
variables with type, offset and size, modules, skipped names with the
reason), then the pickled blobs back to back. Each variable is pickled on its
own, so one that cannot be saved or loaded costs only itself.
"""

from __future__ import annotations

import ast
import contextlib
import hashlib
import io
import json
import linecache
import os
import signal
import sys
import tempfile
import threading
import time
import traceback
import types
from typing import Any

SNAPSHOT = "snapshot"
VERSION = 1
HEAD_BYTES = 20_000
TAIL_BYTES = 30_000
RESULT_CHARS = 50_000
HIDDEN = frozenset({"kenning", "In", "Out", "exit", "quit"})

user = types.ModuleType("__main__")
user.__dict__["__builtins__"] = __builtins__
# Installed before dill is imported: dill pickles functions whose globals are
# __main__'s by reference to __main__, which on restore is this namespace again.
sys.modules["__main__"] = user

try:
    import dill as serialiser  # type: ignore[import-untyped]

    SERIALISER = "dill"
except ImportError:  # pragma: no cover - dill is a dependency; plain pickle still works
    import pickle as serialiser

    SERIALISER = "pickle"


class _Interrupts:
    """SIGINT raises KeyboardInterrupt only while user code runs; otherwise it is held."""

    def __init__(self) -> None:
        self.armed = False
        self.pending = False
        signal.signal(signal.SIGINT, self._handle)

    def _handle(self, signum: int, frame: object) -> None:
        if self.armed:
            self.pending = False
            raise KeyboardInterrupt
        self.pending = True

    def arm(self) -> None:
        self.armed = True
        if self.pending:
            self.pending = False
            raise KeyboardInterrupt


interrupts = _Interrupts()


class Channel:
    def __init__(self, cmd_fd: int, event_fd: int) -> None:
        self.commands = os.fdopen(cmd_fd, "rb", buffering=1 << 16)
        self.event_fd = event_fd

    def send(self, message: dict[str, Any]) -> None:
        data = (json.dumps(message, default=repr) + "\n").encode()
        view = memoryview(data)
        while view:
            view = view[os.write(self.event_fd, view) :]

    def receive(self) -> dict[str, Any] | None:
        line = self.commands.readline()
        if not line:
            return None
        message = json.loads(line)
        return message if isinstance(message, dict) else {}


class HostError(Exception):
    """The parent refused or failed a ``kenning.*`` request; the message says why."""


class Host:
    """The ``kenning`` object in the namespace: requests to the parent, answered in the cell.

    Big data stays here: search results, files and memory come back as
    values, and only what the cell prints reaches the model's context.
    """

    def __init__(self, channel: Channel) -> None:
        self._channel = channel
        self._next = 0

    def _call(self, method: str, **args: Any) -> Any:
        self._next += 1
        ident = self._next
        interrupts.armed = False  # a message is never torn by an interrupt
        try:
            self._channel.send({"op": "host", "id": ident, "method": method, "args": args})
            while True:
                reply = self._channel.receive()
                if reply is None:
                    raise SystemExit(0)
                if reply.get("op") == "reply" and reply.get("id") == ident:
                    break
        finally:
            interrupts.arm()
        if not reply.get("ok"):
            raise HostError(str(reply.get("error") or "the request failed"))
        return reply.get("value")

    def search(self, query: str, limit: int = 10) -> list[dict[str, Any]]:
        """Archive hits for ``query`` (past sessions), as a list of dicts."""
        return list(self._call("search", query=query, limit=limit) or [])

    def memory(self, path: str = "memories/MEMORY.md") -> str:
        """The text of a memory file (memories/MEMORY.md, memories/USER.md, memory/DAY.md …)."""
        return str(self._call("memory", path=path))

    def memory_search(self, query: str, limit: int = 10) -> list[dict[str, Any]]:
        """Memory and journal hits for ``query``."""
        return list(self._call("memory_search", query=query, limit=limit) or [])

    def read(self, path: str) -> str:
        """A text file's contents, under the same path rules as read_file."""
        return str(self._call("read", path=path))

    def write(self, path: str, text: str) -> str:
        """Write ``text`` to ``path`` (inside the working directory, like write_file)."""
        return str(self._call("write", path=path, text=text))

    def delegate(self, task: str, background: str = "") -> str:
        """Run a subagent on ``task``; its final answer, as a string."""
        return str(self._call("delegate", task=task, background=background))

    def __repr__(self) -> str:
        return "<kenning host API: search, memory, memory_search, read, write, delegate>"


# -- running cells --------------------------------------------------------------------------


def run_cell(code: str, number: int) -> dict[str, Any]:
    """Execute ``code`` in the user namespace; the outcome (status, repr, error text)."""
    name = f"<cell {number}>"
    linecache.cache[name] = (len(code), None, code.splitlines(True), name)
    try:
        tree = ast.parse(code, name, "exec")
    except SyntaxError:
        return {"status": "error", "error": traceback.format_exc(limit=0)}
    last: ast.expr | None = None
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = tree.body.pop().value  # type: ignore[attr-defined]
    namespace = user.__dict__
    try:
        interrupts.arm()
        try:
            exec(compile(tree, name, "exec"), namespace)
            value = None
            if last is not None:
                value = eval(compile(ast.Expression(last), name, "eval"), namespace)
        finally:
            interrupts.armed = False
    except KeyboardInterrupt:
        return {"status": "interrupted", "error": _traceback()}
    except SystemExit as exc:
        return {"status": "error", "error": f"SystemExit({exc.code!r}): the kernel keeps running"}
    except BaseException:
        return {"status": "error", "error": _traceback()}
    result = None
    if value is not None:
        namespace["_"] = value
        try:
            result = repr(value)
        except Exception as exc:
            result = f"<repr failed: {type(exc).__name__}: {exc}>"
        if len(result) > RESULT_CHARS:
            result = result[:RESULT_CHARS] + f"… [repr cut at {RESULT_CHARS:,} characters]"
    return {"status": "ok", "result": result}


def _traceback() -> str:
    kind, exc, tb = sys.exc_info()
    while tb is not None and tb.tb_frame.f_code.co_filename == __file__:
        tb = tb.tb_next  # the kernel's own frames are noise to the model
    return "".join(traceback.format_exception(kind, exc, tb))


class Output:
    """Fds 1 and 2 into an unlinked temp file for one cell; its head and tail after."""

    def __enter__(self) -> Output:
        sys.stdout.flush()
        sys.stderr.flush()
        self.file = tempfile.TemporaryFile()
        self.saved = (os.dup(1), os.dup(2))
        os.dup2(self.file.fileno(), 1)
        os.dup2(self.file.fileno(), 2)
        return self

    def __exit__(self, *exc: object) -> None:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        os.dup2(self.saved[0], 1)
        os.dup2(self.saved[1], 2)
        for fd in self.saved:
            os.close(fd)

    def text(self) -> tuple[str, int]:
        """The output (head and tail when it is long) and its full size in bytes."""
        size = self.file.seek(0, os.SEEK_END)
        self.file.seek(0)
        if size <= HEAD_BYTES + TAIL_BYTES:
            data = self.file.read()
        else:
            head = self.file.read(HEAD_BYTES)
            self.file.seek(size - TAIL_BYTES)
            cut = size - HEAD_BYTES - TAIL_BYTES
            data = head + f"\n[… {cut:,} bytes of output omitted here …]\n".encode()
            data += self.file.read()
        self.file.close()
        return data.decode("utf-8", errors="replace"), size


# -- state ----------------------------------------------------------------------------------


def user_variables() -> dict[str, Any]:
    return {
        name: value
        for name, value in user.__dict__.items()
        if not name.startswith("_") and name not in HIDDEN
    }


_written: dict[str, bytes] = {}  # snapshot path -> digest of what this kernel last wrote there


def snapshot(state_dir: str, total_limit: int, var_limit: int) -> dict[str, Any]:
    """Write every variable that can be saved; what was saved and what was skipped, and why."""
    header: dict[str, Any] = {"version": VERSION, "serialiser": SERIALISER}
    saved: dict[str, dict[str, Any]] = {}
    modules: dict[str, str] = {}
    skipped: dict[str, str] = {}
    blobs: list[bytes] = []
    offset = 0
    for name, value in user_variables().items():
        if isinstance(value, types.ModuleType):
            modules[name] = value.__name__  # re-imported on restore
            continue
        try:
            blob = serialiser.dumps(value, protocol=4)
        except BaseException as exc:  # pickling can raise anything, even SystemExit
            skipped[name] = f"cannot be serialised ({type(exc).__name__}: {str(exc)[:120]})"
            continue
        if len(blob) > var_limit:
            skipped[name] = (
                f"{_mib(len(blob))} serialised, over the {_mib(var_limit)} per-variable limit"
            )
            continue
        if offset + len(blob) > total_limit:
            skipped[name] = (
                f"{_mib(len(blob))} serialised would pass the {_mib(total_limit)} total limit"
            )
            continue
        saved[name] = {"type": _type_name(value), "offset": offset, "bytes": len(blob)}
        blobs.append(blob)
        offset += len(blob)
    header.update(vars=saved, modules=modules, skipped=skipped)
    target = os.path.join(state_dir, SNAPSHOT)
    sizes = {name: int(info["bytes"]) for name, info in saved.items()}
    result = {"saved": len(saved), "bytes": offset, "skipped": skipped, "sizes": sizes}
    # A cell that changed nothing (a look at the data) must not pay for rewriting it:
    # writing and fsyncing costs more than hashing what was serialised.
    digest = hashlib.blake2b(json.dumps(header).encode(), digest_size=16)
    for blob in blobs:
        digest.update(blob)
    if digest.digest() == _written.get(target) and os.path.exists(target):
        return result
    fd, tmp = tempfile.mkstemp(prefix=f".{SNAPSHOT}.", suffix=".tmp", dir=state_dir)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(json.dumps(header).encode() + b"\n")
            for blob in blobs:
                handle.write(blob)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    dir_fd = os.open(state_dir, os.O_RDONLY)
    try:
        os.fsync(dir_fd)  # the rename itself survives a power cut
    finally:
        os.close(dir_fd)
    _written[target] = digest.digest()
    return result


def restore(state_dir: str) -> dict[str, Any]:
    """Load the last snapshot into the namespace; names restored and names that failed."""
    path = os.path.join(state_dir, SNAPSHOT)
    if not os.path.exists(path):
        return {"restored": [], "failed": {}, "skipped": {}}
    failed: dict[str, str] = {}
    restored: list[str] = []
    with open(path, "rb") as handle:
        try:
            header = json.loads(handle.readline())
            start = handle.tell()
        except ValueError as exc:
            return {
                "restored": [],
                "failed": {"(snapshot)": f"unreadable header: {exc}"},
                "skipped": {},
            }
        for name, module in (header.get("modules") or {}).items():
            try:
                user.__dict__[name] = __import__(module, fromlist=["_"])
                restored.append(name)
            except BaseException as exc:
                failed[name] = f"import {module} failed ({type(exc).__name__}: {exc})"
        for name, info in (header.get("vars") or {}).items():
            handle.seek(start + int(info["offset"]))
            blob = handle.read(int(info["bytes"]))
            try:
                user.__dict__[name] = serialiser.loads(blob)
                restored.append(name)
            except BaseException as exc:
                failed[name] = f"cannot be loaded ({type(exc).__name__}: {str(exc)[:120]})"
    return {"restored": restored, "failed": failed, "skipped": header.get("skipped") or {}}


def describe_variables(sizes: dict[str, int] | None = None) -> list[dict[str, Any]]:
    """Name, type and size of each variable: what the model is told after a compaction."""
    found = []
    for name, value in user_variables().items():
        size = (sizes or {}).get(name)
        if size is None:
            try:
                size = sys.getsizeof(value)
            except Exception:
                size = 0
        found.append({"name": name, "type": _type_name(value), "bytes": size})
    return found


def _type_name(value: Any) -> str:
    kind = type(value)
    module = kind.__module__
    name = kind.__qualname__
    shape = getattr(value, "shape", None)
    extra = ""
    if isinstance(value, (list, tuple, dict, set, str, bytes)):
        extra = f"[{len(value)}]"
    elif isinstance(shape, tuple):
        extra = str(list(shape))
    if module in ("builtins", "__main__"):
        return name + extra
    return f"{module}.{name}{extra}"


def _mib(n: int) -> str:
    if n < 1 << 20:
        return f"{n / 1024:.1f} KiB"
    return f"{n / (1 << 20):.1f} MiB"


# -- the main loop --------------------------------------------------------------------------


def watch_parent(interval_s: float = 0.5) -> None:
    """Exit as soon as the parent is gone, even in the middle of a cell.

    End of file on the commands only reaches an idle kernel; a cell still
    running when Kenning is SIGKILLed must not finish and snapshot a state
    nobody saw (the promise: a crash loses at most the running cell).
    """
    parent = os.getppid()

    def watch() -> None:
        while True:
            time.sleep(interval_s)
            if os.getppid() != parent:
                os._exit(0)

    threading.Thread(target=watch, name="kenning-parent-watch", daemon=True).start()


def main(argv: list[str]) -> int:
    watch_parent()
    cmd_fd, event_fd = int(argv[1]), int(argv[2])
    state_dir = argv[3]
    limits = json.loads(argv[4])
    channel = Channel(cmd_fd, event_fd)
    user.__dict__["kenning"] = Host(channel)
    sys.stdin = io.TextIOWrapper(io.BytesIO(b""))
    # Write-through streams on fds 1 and 2: print() and a child's output interleave in order.
    sys.stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), write_through=True)
    sys.stderr = io.TextIOWrapper(io.FileIO(2, "w", closefd=False), write_through=True)
    os.makedirs(state_dir, exist_ok=True)
    loaded = restore(state_dir)
    sizes: dict[str, int] = {}
    channel.send(
        {
            "op": "ready",
            "pid": os.getpid(),
            "serialiser": SERIALISER,
            **loaded,
            "vars": describe_variables(),
        }
    )
    number = 0
    while True:
        try:
            command = channel.receive()
        except KeyboardInterrupt:  # an interrupt that came after its cell ended
            continue
        if command is None:
            return 0
        op = command.get("op")
        if op == "vars":
            channel.send({"op": "vars", "vars": describe_variables(sizes)})
        elif op == "exec":
            number = int(command.get("cell") or number + 1)
            interrupts.pending = False
            started = time.monotonic()
            with Output() as output:
                outcome = run_cell(str(command.get("code", "")), number)
            text, size = output.text()
            outcome.update(output=text, output_bytes=size, exec_s=time.monotonic() - started)
            if outcome["status"] == "ok" and command.get("snapshot", True):
                began = time.monotonic()
                try:
                    saved = snapshot(state_dir, int(limits["total"]), int(limits["per_var"]))
                    outcome.update(skipped=saved["skipped"], snapshot_bytes=saved["bytes"])
                    sizes = saved["sizes"]
                except BaseException as exc:
                    outcome["snapshot_error"] = f"{type(exc).__name__}: {exc}"
                outcome["snapshot_s"] = time.monotonic() - began
            outcome["vars"] = describe_variables(sizes)
            channel.send({"op": "done", **outcome})


if __name__ == "__main__":
    sys.exit(main(sys.argv))
