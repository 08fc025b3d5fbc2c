"""A shell command ends with the Kenning process that started it, even a SIGKILLed one.

A real ``kenning run`` child process and a scripted model over the wire: the model runs a
fixture script that records its pid, starts ``sh -c`` with a background grandchild, and
waits on a hold file. Kenning is SIGKILLed (only its own pid: nothing else signals the
command's group); the script, the ``sh -c`` and its grandchild must disappear.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from kenning.testing.models import tool_call
from kenning.testing.procs import gone
from kenning.testing.wire import Delay, OpenAIServer

FIXTURE = """\
echo $$ > command.pid
sh -c 'sleep 300 & echo $! > grandchild.pid; echo $$ > child.pid; wait' &
while [ -e hold ]; do sleep 0.1; done
"""
PIDS = ("command.pid", "child.pid", "grandchild.pid")


def _wait(condition: Callable[[], bool], proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 60
    while not condition():
        assert proc.poll() is None, "kenning run exited before the command started"
        assert time.monotonic() < deadline, "the command never started"
        time.sleep(0.05)


def _pid(path: Path) -> int:
    text = path.read_text() if path.exists() else ""
    return int(text) if text.strip().isdigit() else 0


def test_a_sigkill_of_kenning_ends_the_command_and_what_it_started(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / "fixture.sh").write_text(FIXTURE)
    (work / "hold").touch()
    script = [tool_call("shell", command="sh fixture.sh"), Delay(60, "never seen")]
    pids: list[int] = []
    with OpenAIServer(script) as server:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "kenning",
                "--set",
                f"model.base_url={server.base_url}",
                "--set",
                "agent.shell_allow=sh",
                "run",
                "-m",
                "m",
                "--cwd",
                str(work),
                "run the fixture",
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            _wait(lambda: all(_pid(work / name) for name in PIDS), proc)
            pids = [_pid(work / name) for name in PIDS]
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=30)
            deadline = time.monotonic() + 30  # one generous deadline for all of them
            survivors = [p for p in pids if not gone(p, max(0.0, deadline - time.monotonic()))]
            assert not survivors, f"{survivors} of {pids} outlived Kenning"
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            (work / "hold").unlink(missing_ok=True)
            for pid in pids:  # never leave the fixture running when the test fails
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
