"""File locks (kenning.locks): waiting or not, one primitive that names its holder."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from kenning import doctor
from kenning.fsutil import held
from kenning.locks import Busy, exclusive_lock, holder_of, is_held, lock_path_for, try_lock
from kenning.memory.store import Target
from kenning.testing import make_home


@contextmanager
def held_elsewhere(lock_file: Path, how: str = "exclusive_lock") -> Iterator[subprocess.Popen[str]]:
    """A real second process holding ``lock_file`` until the block ends."""
    code = f"""
        import sys
        from pathlib import Path
        from kenning.locks import {how}
        with {how}(Path({str(lock_file)!r})):
            print("locked", flush=True)
            sys.stdin.readline()
        """
    proc = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(code)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "locked"
        yield proc
    finally:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.close()
        proc.wait(timeout=30)
        proc.stdout.close()


def test_a_waiting_holder_is_named_when_a_non_waiting_caller_is_refused(tmp_path: Path) -> None:
    lock = tmp_path / "locks" / "job.lock"
    with held_elsewhere(lock) as other:
        assert is_held(lock) and holder_of(lock) == other.pid
        with pytest.raises(Busy) as refused, try_lock(lock):
            pass
        assert refused.value.holder == other.pid
        assert f"job.lock is held by another process (pid {other.pid})" == str(refused.value)
    assert not is_held(lock)  # released when the holder exits
    with try_lock(lock):
        assert holder_of(lock) == os.getpid()


def test_the_waiting_lock_waits_for_a_non_waiting_holder(tmp_path: Path) -> None:
    lock = tmp_path / "job.lock"
    got = threading.Event()

    def wait_for_it() -> None:
        with exclusive_lock(lock):
            got.set()

    with held_elsewhere(lock, "try_lock"):
        waiter = threading.Thread(target=wait_for_it)
        waiter.start()
        assert not got.wait(0.3)  # still held by the other process
    waiter.join(timeout=30)
    assert got.is_set()


def test_a_killed_holder_leaves_nothing_locked(tmp_path: Path) -> None:
    lock = tmp_path / "job.lock"
    with held_elsewhere(lock) as other:
        other.kill()
        other.wait(timeout=30)
        assert not is_held(lock)
        with try_lock(lock):
            pass


def test_doctor_names_the_process_writing_a_memory_file(tmp_path: Path) -> None:
    home = make_home(tmp_path / "home")
    home.memory.add(Target.MEMORY, "Project uses pnpm")
    memory_file = home.layout.memory_file
    with held(memory_file):  # the lock file exists once a writer took it
        pass
    with held_elsewhere(lock_path_for(memory_file)) as writer:
        report = doctor.diagnose(home.root, environ={})
    locks = [c for c in report.checks if c.name == "kenning-locks"]
    assert locks and any(f"(pid {writer.pid})" in line for line in locks[0].details)
