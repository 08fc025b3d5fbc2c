"""State that survives: snapshots after each cell, restored on --resume, restart and crashes."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from kenning.cli import cli
from kenning.config import AgentConfig, Config, EmbeddingConfig
from kenning.context.transcript import COMPACTION_KEY
from kenning.home import Home
from kenning.testing.models import tool_call
from kenning.testing.wire import OpenAIServer
from kenning.testing.wire.script import Delay
from kenning.tools import ToolContext, ToolResult
from kenning.workspace import Limits, Workspaces, python_tool
from kenning.workspace.snapshot import read_header

SETTINGS = ("--set", "agent.python_approval=allowlist", "--set", "agent.python_allow=time")


def kenning(server: OpenAIServer, *args: str) -> Result:
    return CliRunner().invoke(cli, ["--set", f"model.base_url={server.base_url}", *SETTINGS, *args])


def tool_results(server: OpenAIServer) -> list[str]:
    last = list(server.requests)[-1].body["messages"]
    return [m["content"] for m in last if m["role"] == "tool"]


def last_session() -> str:
    return Home.open().archive.sessions(limit=1)[0].id


def test_a_variable_survives_resume(tmp_path: Path) -> None:
    with OpenAIServer([tool_call("python", code="total = 99"), "set"]) as server:
        first = kenning(server, "run", "-m", "m", "--cwd", str(tmp_path), "set it")
    assert first.exit_code == 0, first.output
    sid = last_session()
    with OpenAIServer([tool_call("python", code="total + 1"), "100"]) as server:
        again = kenning(server, "run", "-m", "m", "--resume", sid, "--cwd", str(tmp_path), "more")
        results = tool_results(server)
    assert again.exit_code == 0, again.output
    assert "restored from the snapshot: total" in results[-1] and "Out: 100" in results[-1]


def test_a_variable_survives_a_compaction(tmp_path: Path) -> None:
    sid = ""
    for turn in range(3):  # three user turns: the middle one is what gets compacted
        cells = [tool_call("python", code=f"step_{turn}_{i} = {i}") for i in range(4)]
        script = [*cells, tool_call("python", code="frame = {'rows': list(range(50))}"), "ok"]
        resume = ["--resume", sid] if sid else []
        with OpenAIServer(script) as server:
            ran = kenning(server, "run", "-m", "m", *resume, "--cwd", str(tmp_path), f"load {turn}")
            assert ran.exit_code == 0, ran.output
        sid = last_session()
    summary = "## Goal\nload data\n## Progress\nvariables set in the kernel"
    with OpenAIServer([summary] * 4) as server:
        compacted = kenning(server, "sessions", "compact", sid, "--model", "m")
    assert compacted.exit_code == 0, compacted.output
    messages = Home.open().archive.messages(sid)
    stored = next(m for m in messages if m.active and m.meta and COMPACTION_KEY in m.meta)
    assert "Python workspace: the kernel keeps these variables" in stored.content
    assert "- frame: dict[1]" in stored.content and "- step_2_3: int" in stored.content
    with OpenAIServer([tool_call("python", code="len(frame['rows'])"), "50"]) as server:
        again = kenning(server, "run", "-m", "m", "--resume", sid, "--cwd", str(tmp_path), "go")
        first_request = next(iter(server.requests)).body["messages"]
        results = tool_results(server)
    assert again.exit_code == 0, again.output
    assert any("- frame: dict[1]" in str(m.get("content")) for m in first_request)
    assert "Out: 50" in results[-1]


def _kernels_of(state_dir: Path) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes().decode(errors="replace")
            except OSError:
                continue
            if "kernel_main.py" in cmdline and str(state_dir) in cmdline:
                found.append(int(entry.name))
    return found


# A hang guard, not a speed check: a `kenning run` started under subprocess
# coverage on a busy machine took over 30 s to send its first request.
def _wait(condition: object, within_s: float = 300.0) -> bool:
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        if condition():  # type: ignore[operator]
            return True
        time.sleep(0.05)
    return False


def test_a_sigkill_of_kenning_loses_only_the_running_cell(tmp_path: Path) -> None:
    script = [
        tool_call("python", code="kept = {'a': 41}"),
        tool_call("python", code="import time\nkept['a'] = 0\ntime.sleep(60)"),
        Delay(30, "never seen"),
    ]
    with OpenAIServer(script) as server:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "kenning",
                "--set",
                f"model.base_url={server.base_url}",
                *SETTINGS,
                "run",
                "-m",
                "m",
                "--cwd",
                str(tmp_path),
                "work",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            assert _wait(lambda: len(server.requests) >= 2), "the second cell never started"
            sid = last_session()
            state = Home.open().root / "cache" / "workspaces" / sid
            assert _wait(lambda: bool(_kernels_of(state)))
            time.sleep(0.5)  # the second cell is sleeping inside the kernel
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=10)
        finally:
            if proc.poll() is None:
                proc.kill()
        # The kernel goes with its parent, mid-cell, and writes nothing more.
        assert _wait(lambda: not _kernels_of(state), within_s=10)
    variables, _ = read_header(state)
    assert [v.name for v in variables] == ["kept"]
    with OpenAIServer([tool_call("python", code="kept['a'] + 1"), "42"]) as server:
        again = kenning(server, "run", "-m", "m", "--resume", sid, "--cwd", str(tmp_path), "on")
        results = tool_results(server)
    assert again.exit_code == 0, again.output
    assert "restored from the snapshot: kept" in results[-1] and "Out: 42" in results[-1]


# -- called directly ------------------------------------------------------------------------


@pytest.fixture
def spaces(tmp_path: Path) -> Iterator[Workspaces]:
    config = Config(
        agent=AgentConfig(python_approval="allowlist", python_allow=("os", "signal")),
        embedding=EmbeddingConfig(provider="none"),
    )
    made = Workspaces(Home(tmp_path / "home", config), limits=Limits(total=20_000, per_var=8_000))
    yield made
    made.close()


def call(spaces: Workspaces, code: str, *, restart: bool = False) -> ToolResult:
    cwd = spaces.home.root.parent
    ctx = ToolContext(spaces.home, cwd=cwd, session_id="s1", purpose="test")
    return asyncio.run(python_tool(spaces).run({"code": code, "restart": restart}, ctx))


def test_an_unserialisable_variable_is_reported_as_skipped(spaces: Workspaces) -> None:
    result = call(spaces, "numbers = [1, 2]\nlive = (n for n in numbers)")
    assert result.ok
    assert (
        "Not saved in the snapshot" in result.text and "live: cannot be serialised" in result.text
    )
    restarted = call(spaces, "numbers", restart=True)
    assert "restored from the snapshot: numbers" in restarted.text
    assert "not restored: live (cannot be serialised" in restarted.text
    assert "Out: [1, 2]" in restarted.text


def test_the_size_limits_skip_what_does_not_fit(spaces: Workspaces) -> None:
    code = "small = 'a' * 100\nhuge = 'b' * 10_000\n"
    code += "mid1 = 'c' * 7_000\nmid2 = 'd' * 7_000\nmid3 = 'e' * 7_000"
    result = call(spaces, code)
    assert "huge: " in result.text and "over the 7.8 KiB per-variable limit" in result.text
    assert "mid3: " in result.text and "total limit" in result.text
    variables, skipped = read_header(spaces.state_dir("s1"))
    assert {v.name for v in variables} == {"small", "mid1", "mid2"}
    assert set(skipped) == {"huge", "mid3"}


def test_a_killed_kernel_restarts_from_the_last_snapshot(spaces: Workspaces) -> None:
    assert call(spaces, "x = 5\ndef triple(v):\n    return 3 * v").ok
    died = call(spaces, "import os, signal\nx = 6\nos.kill(os.getpid(), signal.SIGKILL)")
    assert not died.ok and "the kernel died" in died.text
    after = call(spaces, "triple(x)")
    assert "restored from the snapshot" in after.text and "Out: 15" in after.text


def test_the_compaction_note_lists_the_live_kernels_variables(spaces: Workspaces) -> None:
    assert call(spaces, "table = [[1, 2], [3, 4]]\nimport os").ok
    note = spaces.note("s1")
    assert "- table: list[2]" in note and "- os: module os" not in note
    assert spaces.note("other") == ""


def test_a_failed_cell_does_not_snapshot(spaces: Workspaces) -> None:
    assert call(spaces, "value = 1").ok
    assert not call(spaces, "value = 2\nraise ValueError('no')").ok
    restarted = call(spaces, "value", restart=True)
    # The snapshot is of the last successful cell; the live kernel had value = 2.
    assert "Out: 1" in restarted.text
    assert os.path.exists(spaces.state_dir("s1") / "snapshot")


def test_a_cell_that_changes_nothing_does_not_rewrite_the_snapshot(spaces: Workspaces) -> None:
    assert call(spaces, "data = list(range(100))").ok
    path = spaces.state_dir("s1") / "snapshot"
    before = path.stat().st_ino
    assert "Out: 100" in call(spaces, "len(data)").text
    assert path.stat().st_ino == before  # not replaced
    assert call(spaces, "data.append(1)").ok
    assert path.stat().st_ino != before  # a change is written (a new file renamed over)
    assert "Out: 101" in call(spaces, "len(data)", restart=True).text


def test_a_restart_alone_reports_what_came_back(spaces: Workspaces) -> None:
    assert call(spaces, "kept = 3").ok
    restarted = call(spaces, "", restart=True)
    assert restarted.ok and "restored from the snapshot: kept" in restarted.text
