"""The ``kenning`` object in the kernel: requests served by the parent while the cell runs."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

from click.testing import CliRunner, Result

from kenning.cli import cli
from kenning.home import Home
from kenning.testing.models import tool_call
from kenning.testing.wire import OpenAIServer
from kenning.testing.wire.script import Delay

SETTINGS = (
    "--set",
    "agent.python_approval=allowlist",
    "--set",
    "embedding.provider=none",
)


def kenning_run(server: OpenAIServer, cwd: Path, task: str) -> Result:
    return CliRunner().invoke(
        cli,
        [
            "--set",
            f"model.base_url={server.base_url}",
            *SETTINGS,
            "run",
            "-m",
            "m",
            "--cwd",
            str(cwd),
            task,
        ],
    )


def tool_results(server: OpenAIServer) -> list[str]:
    last = list(server.requests)[-1].body["messages"]
    return [m["content"] for m in last if m["role"] == "tool"]


def test_search_returns_archive_hits_inside_the_kernel(tmp_path: Path) -> None:
    with OpenAIServer(["bastion-7 runs the nightly deploy at 02:00."]) as server:
        assert kenning_run(server, tmp_path, "which host deploys at night?").exit_code == 0
    earlier = Home.open().archive.sessions(limit=1)[0].id
    cell = (
        "hits = kenning.search('nightly deploy bastion')\n"
        "found = [m['content'] for s in hits for m in s['messages']"
        " if 'bastion-7' in m['content']]\n"
        "print(len(hits), 'session(s)')\n"
        "hits[0]['session_id'], found[0]"
    )
    with OpenAIServer([tool_call("python", code=cell), "It is bastion-7."]) as server:
        result = kenning_run(server, tmp_path, "look it up in code")
        results = tool_results(server)
    assert result.exit_code == 0, result.output
    assert "1 session(s)" in results[0]
    assert f"Out: ({earlier!r}, 'bastion-7 runs the nightly deploy at 02:00.')" in results[0]


def test_files_follow_the_usual_rules(tmp_path: Path) -> None:
    (tmp_path / "in.txt").write_text("alpha\nbeta\n")
    cell = (
        "text = kenning.read('in.txt')\n"
        "kenning.write('out/upper.txt', text.upper())\n"
        "try:\n"
        "    kenning.write('../escape.txt', 'no')\n"
        "except Exception as exc:\n"
        "    refused = f'{type(exc).__name__}: {exc}'\n"
        "refused"
    )
    with OpenAIServer([tool_call("python", code=cell), "ok"]) as server:
        result = kenning_run(server, tmp_path, "copy")
        results = tool_results(server)
    assert result.exit_code == 0, result.output
    assert (tmp_path / "out" / "upper.txt").read_text() == "ALPHA\nBETA\n"
    assert not (tmp_path.parent / "escape.txt").exists()
    assert "HostError" in results[0] and "outside the workspace" in results[0]


def test_memory_reads_the_memory_file(tmp_path: Path) -> None:
    home = Home.open()
    home.layout.memories_dir.mkdir(parents=True, exist_ok=True)
    home.layout.memory_file.write_text("The user prefers tabs.\n")
    cell = "notes = kenning.memory()\n'tabs' in notes, notes.count('\\n')"
    with OpenAIServer([tool_call("python", code=cell), "ok"]) as server:
        result = kenning_run(server, tmp_path, "what do I prefer?")
        results = tool_results(server)
    assert result.exit_code == 0, result.output
    assert "Out: (True, 1)" in results[0]


def test_delegate_returns_the_subagents_answer_as_a_value(tmp_path: Path) -> None:
    cell = "answer = kenning.delegate('count the files')\nanswer.upper()"
    # The subagent's request comes while the cell runs: it takes the second reply.
    script = [tool_call("python", code=cell), "there are 3 files", "done"]
    with OpenAIServer(script) as server:
        result = kenning_run(server, tmp_path, "delegate from code")
        results = tool_results(server)
        subagent = list(server.requests)[1].body["messages"]
    assert result.exit_code == 0, result.output
    assert "Out: 'THERE ARE 3 FILES'" in results[0]
    assert any("count the files" in str(m.get("content")) for m in subagent)
    sources = {s.source for s in Home.open().archive.sessions(limit=5)}
    assert "subagent" in sources


def test_a_large_write_crosses_the_channel_whole(tmp_path: Path) -> None:
    cell = "big = 'line of text\\n' * 300_000\nkenning.write('big.txt', big)\nlen(big)"
    with OpenAIServer([tool_call("python", code=cell), "ok"]) as server:
        result = kenning_run(server, tmp_path, "write a big file")
        results = tool_results(server)
    assert result.exit_code == 0, result.output
    assert "Out: 3900000" in results[0]
    assert (tmp_path / "big.txt").read_text() == "line of text\n" * 300_000


def test_ctrl_c_during_a_delegation_from_a_cell_ends_the_run_promptly(tmp_path: Path) -> None:
    cell = "answer = kenning.delegate('take your time')"
    script = [tool_call("python", code=cell), Delay(60, "too late")]
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
                "delegate",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        try:
            deadline = time.monotonic() + 300  # a hang guard: a cold start can take > 30 s
            while len(server.requests) < 2 and time.monotonic() < deadline:
                time.sleep(0.05)  # the subagent's request is waiting on the server
            assert len(server.requests) >= 2
            time.sleep(0.3)
            interrupted = time.monotonic()
            proc.send_signal(signal.SIGINT)
            _, err = proc.communicate(timeout=30)
            took = time.monotonic() - interrupted
        finally:
            if proc.poll() is None:
                proc.kill()
    assert proc.returncode == 130, err
    assert took < 6, f"took {took:.1f} s to stop"
