"""`kenning chat` on a pty: the live status, /cost, /undo, /retry, /init, the
recap of --continue, multi-line input and tab completion."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pexpect
import pytest
from tests.cli.test_chat_pty import NO_CPR, chat


def _requests(log: Path) -> list[dict[str, object]]:
    return [json.loads(line)["body"] for line in log.read_text().splitlines()]


def _exit(child: pexpect.spawn) -> None:
    child.expect("›")
    child.sendline("/exit")
    child.expect(pexpect.EOF)


def test_the_status_line_shows_the_step_and_time_during_a_slow_reply(tmp_path: Path) -> None:
    with chat(tmp_path, [{"delay": 2.5, "then": "Late answer."}]) as (child, _):
        child.expect("›")
        child.sendline("Take your time.")
        child.expect(r"waiting for the model · \d+\.\d s · 0 in / 0 out · free \(local\)")
        child.expect("Late answer.")
        child.expect(r"· \d+\.\d s · \d[\d,]* in / \d+ out")
        child.expect("›")
        child.sendline("/cost")
        child.expect(r"output tokens +\d")
        child.expect(r"cost +free \(local\)")
        _exit(child)


def test_undo_restores_the_files_the_last_turn_edited(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text("original = True\n")
    calls = [
        {"name": "write_file", "arguments": {"path": "app.py", "content": "rewritten = 1\n"}},
        {"name": "write_file", "arguments": {"path": "new.py", "content": "x = 1\n"}},
    ]
    script = [{"tool_calls": calls[:1]}, {"tool_calls": calls[1:]}, "Rewrote it."]
    with chat(tmp_path, script, args=("--mode", "auto-edit")) as (child, _):
        child.expect("›")
        child.sendline("Rewrite app.py.")
        child.expect("edited app.py")
        child.expect(r"\+rewritten = 1")
        child.expect("Rewrote it.")
        child.expect("›")
        assert (tmp_path / "app.py").read_text() == "rewritten = 1\n"
        child.sendline("/undo")
        child.expect(f"restored {tmp_path / 'app.py'}")
        _exit(child)
    assert (tmp_path / "app.py").read_text() == "original = True\n"
    assert not (tmp_path / "new.py").exists()


def test_continue_prints_a_recap_and_retry_sends_the_last_message_again(tmp_path: Path) -> None:
    with chat(tmp_path, ["The plan has three steps."]) as (child, _):
        child.expect("›")
        child.sendline("Summarise the release plan.")
        child.expect("three steps")
        _exit(child)
    script = ["First try.", "Second try."]
    with chat(tmp_path, script, args=("--continue",)) as (child, log):
        child.expect("resumed 2 messages · goal: Summarise the release plan.")
        child.expect("you: Summarise the release plan.")
        child.expect("kenning: The plan has three steps.")
        child.expect("›")
        child.sendline("Which step first?")
        child.expect("First try.")
        child.expect("›")
        child.sendline("/retry")
        child.expect("again: Which step first?")
        child.expect("Second try.")
        _exit(child)
    last = _requests(log)[-1]["messages"]
    assert [m["content"] for m in last if m["role"] == "user"][-1] == "Which step first?"


def test_init_looks_at_the_project_and_writes_agents_md(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("# Demo\nRun `make test`.\n")
    write = {"path": "AGENTS.md", "content": "# Demo\n\nTest with `make test`.\n"}
    script = [
        {"tool_calls": [{"name": "read_file", "arguments": {"path": "README.md"}}]},
        {"tool_calls": [{"name": "write_file", "arguments": write}]},
        "Wrote AGENTS.md.",
    ]
    with chat(tmp_path, script) as (child, log):
        child.expect("›")
        child.sendline("/init")
        child.expect("The agent wants to create AGENTS.md")
        child.expect(r"\+Test with `make test`.")
        child.expect("Apply\\?")
        child.sendline("y")
        child.expect("Wrote AGENTS.md.")
        _exit(child)
    assert "make test" in (tmp_path / "AGENTS.md").read_text()
    first = _requests(log)[0]["messages"]
    assert "Write an AGENTS.md for this project" in first[-1]["content"]


def test_multi_line_input_and_tab_completion(tmp_path: Path) -> None:
    (tmp_path / "notes-2026.md").write_text("x")
    with chat(tmp_path, ["Got both lines."]) as (child, log):
        child.expect("›")
        child.send("first line")
        child.send("\x1b\r")  # Alt-Enter: a new line, not sent
        child.send("second line about notes-")
        child.send("\t")  # completes the path
        child.expect("2026.md")  # the completed rest of the name, drawn in
        child.send("\r")
        child.expect("Got both lines.")
        child.expect("›")
        child.send("/und")
        child.send("\t")
        child.expect("o")  # the rest of /undo, drawn in
        child.send("\r")
        child.expect("nothing to undo")  # not "unknown command /und"
        _exit(child)
    user = [m for m in _requests(log)[0]["messages"] if m["role"] == "user"][-1]
    assert user["content"] == "first line\nsecond line about notes-2026.md"


def test_ctrl_c_mid_answer_stops_cleanly_without_echoing(tmp_path: Path) -> None:
    answer = "First line.\n\nSecond line.\n\n" + " ".join(f"w{i}" for i in range(80))
    with chat(tmp_path, [answer], CHUNK_DELAY="0.1") as (child, _):
        child.expect("›")
        child.sendline("Go on.")
        child.expect("Second line")
        child.sendcontrol("c")
        child.expect("interrupted")
        assert "^C" not in child.before  # the terminal's echo, in the middle of the answer
        child.expect("›")
        child.sendline("/exit")
        child.expect(pexpect.EOF)


@pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux to read the screen")
def test_ctrl_c_mid_answer_leaves_each_line_once_on_the_screen(tmp_path: Path) -> None:
    """What a person sees, read from tmux's screen: no line of the answer twice."""
    script = tmp_path / "script.json"
    words = " ".join(f"w{i}" for i in range(1, 31))
    answer = f"First line of the answer.\n\nSecond line here.\n\nThird arrives {words}"
    script.write_text(json.dumps([answer]))
    wire = [sys.executable, "-m", "kenning.testing.wire", "openai", "--script", str(script)]
    server = subprocess.Popen([*wire, "--chunk-delay", "0.2"], stdout=subprocess.PIPE, text=True)
    tmux = ["tmux", "-L", f"kenning-{tmp_path.name}"]
    try:
        assert server.stdout is not None
        url = server.stdout.readline().strip()
        command = (
            f"env KENNING_MODEL__BASE_URL={url} KENNING_MODEL__DEFAULT=local-model "
            f"{sys.executable} -m kenning chat --cwd {tmp_path}; sleep 60"
        )
        subprocess.run([*tmux, "new-session", "-d", "-x", "100", "-y", "30", command], check=True)

        def screen() -> str:
            shown = subprocess.run([*tmux, "capture-pane", "-p"], capture_output=True, text=True)
            return shown.stdout

        def wait_for(text: str) -> str:
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                if text in (shown := screen()):
                    return shown
                time.sleep(0.2)
            raise AssertionError(f"{text!r} never showed:\n{screen()}")

        wait_for("›")
        subprocess.run([*tmux, "send-keys", "hello", "Enter"], check=True)
        wait_for("Third arrives")  # the third line is being drawn
        subprocess.run([*tmux, "send-keys", "C-c"], check=True)
        wait_for("interrupted")
        wait_for("›")
        time.sleep(1.0)  # the next prompt is drawn
        shown = screen()
        assert shown.count("First line of the answer.") == 1, shown
        assert shown.count("Second line here.") == 1, shown
        assert "^C" not in shown
    finally:
        subprocess.run([*tmux, "kill-server"], capture_output=True)
        server.terminate()
        server.wait(timeout=10)
        if server.stdout is not None:
            server.stdout.close()


def test_a_configured_stdio_mcp_server_is_called_from_the_chat(tmp_path: Path) -> None:
    from kenning.config.edit import set_values
    from kenning.home import Home

    server = Path(__file__).parent.parent / "chat" / "notes_mcp_server.py"
    log = tmp_path / "calls.jsonl"
    env = {"NOTES_LOG": str(log), "PYTHONPATH": os.environ.get("PYTHONPATH", "")}
    config = Home.open().layout.config_file
    set_values(config, "mcp.servers.notes", {"command": sys.executable, "args": [str(server)]})
    set_values(config, "mcp.servers.notes", {"env": env, "allowed_tools": ["lookup", "add_note"]})
    script = [
        {"tool_calls": [{"name": "mcp__notes__lookup", "arguments": {"term": "kenning"}}]},
        {"tool_calls": [{"name": "mcp__notes__add_note", "arguments": {"text": "ship"}}]},
        "Looked it up and noted it.",
    ]
    with chat(tmp_path, script) as (child, requests):
        child.expect("MCP notes: 2 tool\\(s\\)")
        child.expect("›")
        child.sendline("Look up kenning, then note ship.")
        child.expect("mcp__notes__lookup term=kenning")
        child.expect("The agent wants to use mcp:.*mcp__notes__add_note")
        child.expect('"text": "ship"')
        child.expect("\\[a\\]lways this tool")
        child.sendline("y")
        child.expect("Looked it up and noted it.")
        _exit(child)
    calls = [json.loads(line) for line in log.read_text().splitlines()]
    assert calls == [{"tool": "lookup", "term": "kenning"}, {"tool": "add_note", "text": "ship"}]
    sent = _requests(requests)
    assert any(t["function"]["name"] == "mcp__notes__lookup" for t in sent[0]["tools"])
    assert "kenning: found in notes/2026.md" in json.dumps(sent[1]["messages"])


def test_a_stopped_ollama_is_named_at_once_with_how_to_start_it(tmp_path: Path) -> None:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {**os.environ, "KENNING_MODEL__DEFAULT": "ollama:qwen3", "TERM": "xterm", **NO_CPR}
    env.update(COLUMNS="200", LINES="40")  # the pty's size, whatever the parent had
    env["OLLAMA_HOST"] = f"127.0.0.1:{port}"
    child = pexpect.spawn(
        sys.executable,
        ["-m", "kenning", "chat", "--cwd", str(tmp_path)],
        env=env,
        encoding="utf-8",
        timeout=60,
        dimensions=(40, 200),
    )
    try:
        child.expect("nothing is listening at http://127.0.0.1:")
        child.expect("`ollama serve`")
        child.expect("›")
        child.sendline("Hello?")
        # Said for the turn too (that it is not retried is tests/models/test_local_servers.py's).
        child.expect("nothing is listening")
        _exit(child)
    finally:
        child.close()
