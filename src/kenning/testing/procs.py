"""Real processes for tests that need one running (a git that holds a repository open),
and waiting for one to end."""

from __future__ import annotations

import contextlib
import os
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def running_git(cwd: Path) -> Iterator[subprocess.Popen[bytes]]:
    """A real ``git cat-file --batch`` working in ``cwd`` until the block ends.

    Yields only once the child shows as ``git`` in /proc: ``Popen`` can return
    while the forked child still carries Python's name, just before its exec.
    """
    proc = subprocess.Popen(["git", "cat-file", "--batch"], cwd=cwd, stdin=subprocess.PIPE)
    try:
        comm = Path(f"/proc/{proc.pid}/comm")
        deadline = time.monotonic() + 30
        while comm.exists() and not comm.read_text().startswith("git"):
            if time.monotonic() > deadline or proc.poll() is not None:
                raise RuntimeError("git cat-file did not start")
            time.sleep(0.005)
        yield proc
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
        proc.wait(timeout=30)


def gone(pid: int, within_s: float) -> bool:
    """Whether process ``pid`` ends within ``within_s`` seconds (polled, never assumed).

    A killed process whose parent died too is left a zombie until its new parent
    (init, or a container's first process that may never reap) collects it: dead all
    the same, so a zombie counts as gone.
    """
    deadline = time.monotonic() + within_s
    while True:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        except PermissionError:
            pass  # alive, and someone else's
        with contextlib.suppress(FileNotFoundError, ProcessLookupError):
            if Path(f"/proc/{pid}/stat").read_text().rsplit(") ", 1)[-1].startswith("Z"):
                return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.02)
