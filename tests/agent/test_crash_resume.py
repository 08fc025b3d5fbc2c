"""SIGKILL in the middle of a turn loses nothing that was complete; --resume continues."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from kenning.agent.loop import AgentSession
from kenning.context.transcript import INTERRUPTED_RESULT
from kenning.home import Home
from kenning.runtime.factory import build_tools
from kenning.testing.models import ScriptedModel

CHILD = textwrap.dedent(
    """
    import asyncio, sys, time
    from pathlib import Path
    from kenning.runtime.factory import build_tools
    from kenning.agent.loop import AgentSession
    from kenning.testing import make_home
    from kenning.testing.models import ScriptedModel, tool_call
    from kenning.tools.base import Tool

    home = make_home(Path(sys.argv[1]))
    marker = Path(sys.argv[2])
    tools = build_tools(home)

    def build() -> str:
        '''Run the long build.'''
        marker.write_text("started")
        time.sleep(600)
        return "built"

    tools.register(Tool.from_function(build))
    model = ScriptedModel([
        tool_call("read_file", path=sys.argv[3]),
        tool_call("build"),
        "never reached",
    ])
    session = AgentSession.start(home, model, tools, cwd=Path(sys.argv[4]))
    print(session.session_id, flush=True)
    asyncio.run(session.run("Read the notes, then build."))
    """
)


def test_sigkill_mid_turn_then_resume(tmp_path: Path) -> None:
    root = tmp_path / "home"
    marker = tmp_path / "marker"
    notes = tmp_path / "notes.txt"
    notes.write_text("build with care\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(root), str(marker), str(notes), str(tmp_path)],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert child.stdout is not None
        session_id = child.stdout.readline().strip()
        deadline = time.monotonic() + 60
        while not marker.exists():
            assert child.poll() is None, "the child exited early"
            assert time.monotonic() < deadline, "the tool never started"
            time.sleep(0.02)
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        if child.stdout is not None:
            child.stdout.close()

    from kenning.testing import make_home

    home: Home = make_home(root)
    before = home.archive.messages(session_id)
    assert [m.role for m in before] == ["user", "assistant", "tool", "assistant"]
    assert "build with care" in before[2].content  # the completed tool result survived
    model = ScriptedModel(["The build was interrupted; starting it again is safe."])
    resumed = AgentSession.resume(home, model, build_tools(home), session_id, cwd=tmp_path)
    ended = asyncio.run(resumed.run("What happened?"))
    assert ended.ok
    sent = model.calls[0].messages
    assert [m.role for m in sent] == [
        "system",
        "user",
        "assistant",
        "tool",
        "assistant",
        "tool",
        "user",
    ]
    assert sent[5].content == INTERRUPTED_RESULT
    assert sent[0].content == home.archive.session(session_id).meta["system_prompt"]  # type: ignore[union-attr]
