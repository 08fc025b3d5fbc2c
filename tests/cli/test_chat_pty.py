"""`kenning chat` in a real pseudo-terminal against the OpenAI-format server in
another process: a question, a tool call, an answer, a slash command, /exit."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pexpect

from kenning.home import Home

# pexpect's pty is a terminal that never answers a cursor-position request:
# prompt_toolkit would wait a second for the answer at the end of every prompt
# (every line sent, every approval). This is its own switch for such terminals.
NO_CPR = {"PROMPT_TOOLKIT_NO_CPR": "1"}


@contextmanager
def chat(
    tmp_path: Path,
    script: list[Any],
    *,
    width: int = 120,
    args: tuple[str, ...] = (),
    **env: str,
) -> Iterator[tuple[pexpect.spawn, Path]]:
    """`kenning chat` on a pty, its model a scripted wire server; yields (child, requests log)."""
    script_file = tmp_path / "script.json"
    script_file.write_text(json.dumps(script))
    requests_file = tmp_path / "requests.jsonl"
    wire = [sys.executable, "-m", "kenning.testing.wire", "openai", "--script", str(script_file)]
    delay = ["--chunk-delay", env.pop("CHUNK_DELAY")] if "CHUNK_DELAY" in env else []
    server = subprocess.Popen(
        [*wire, "--requests", str(requests_file), *delay], stdout=subprocess.PIPE, text=True
    )
    try:
        assert server.stdout is not None
        base_url = server.stdout.readline().strip()
        assert base_url.startswith("http://127.0.0.1:")
        child = pexpect.spawn(
            sys.executable,
            ["-m", "kenning", "chat", "--cwd", str(tmp_path), *args],
            env={
                **os.environ,
                "KENNING_MODEL__BASE_URL": base_url,
                "KENNING_MODEL__DEFAULT": "local-model",
                "TERM": "xterm",
                **NO_CPR,
                # The pty's own size: an inherited COLUMNS (pytest-xdist workers carry
                # one) would make rich wrap at another width than the pty has.
                "COLUMNS": str(width),
                "LINES": "40",
                **env,
            },
            encoding="utf-8",
            timeout=60,
            dimensions=(40, width),
        )
        try:
            yield child, requests_file
        finally:
            child.close()
        assert child.exitstatus == 0
    finally:
        server.terminate()
        server.wait(timeout=10)
        if server.stdout is not None:
            server.stdout.close()


def test_chat_question_tool_call_answer_exit(tmp_path: Path) -> None:
    (tmp_path / "plan.md").write_text("Step one: write the tests.\n")
    script = [
        {"tool_calls": [{"name": "read_file", "arguments": {"path": "plan.md"}}]},
        "The plan starts with **writing the tests**.",
        "Nothing to save.",  # the /review
    ]
    with chat(tmp_path, script) as (child, requests_file):
        child.expect("local-model")
        child.expect("›")
        child.sendline("What does my plan say?")
        child.expect("read_file path=plan.md")
        child.expect("writing the tests")
        child.expect("›")
        child.sendline("/review")
        child.expect("(?i)nothing")
        child.expect("›")
        child.sendline("/help")
        child.expect("/resume")
        child.expect("›")
        child.sendline("/exit")
        child.expect(pexpect.EOF)
    requests = [json.loads(line) for line in requests_file.read_text().splitlines()]
    assert len(requests) == 3
    home = Home.open()
    session = next(s for s in home.archive.sessions(limit=5) if s.source == "cli")
    assert any(s.source == "review" and s.parent_id == session.id for s in home.archive.sessions())
    assert session.source == "cli" and session.end_reason == "user_exit"
    assert [m.role for m in home.archive.messages(session.id)] == [
        "user",
        "assistant",
        "tool",
        "assistant",
    ]


def test_chat_shows_an_empty_answer_as_an_error_and_goes_on(tmp_path: Path) -> None:
    script = [{"stream": [{"choices": []}, "[DONE]"]}, "Second time lucky."]
    with chat(tmp_path, script, width=200, KENNING_MODEL__MAX_RETRIES="0") as (child, _):
        child.expect("›")
        child.sendline("Say something.")
        child.expect("the model returned an empty response")
        child.expect("Try again, or use another model")
        child.expect("›")
        child.sendline("Again please.")
        child.expect("Second time lucky.")
        child.expect("›")
        child.sendline("/exit")
        child.expect(pexpect.EOF)
    home = Home.open()
    session = next(s for s in home.archive.sessions(limit=5) if s.source == "cli")
    messages = home.archive.messages(session.id)
    assert [(m.role, m.content) for m in messages] == [
        ("user", "Say something."),
        ("user", "Again please."),
        ("assistant", "Second time lucky."),
    ]


def test_an_edit_shows_its_diff_and_a_no_leaves_the_file(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text("x = 1\ny = 2\n")
    edit = {"path": "app.py", "old": "y = 2", "new": "y = 3"}
    script = [{"tool_calls": [{"name": "edit_file", "arguments": edit}]}, "Left it as it is."]
    with chat(tmp_path, script) as (child, _):
        child.expect("›")
        child.sendline("Set y to 3.")
        child.expect("The agent wants to change app.py")
        child.expect("-y = 2")
        child.expect(r"\+y = 3")
        child.expect("Apply\\?")
        child.sendline("n")
        child.expect("the user declined this edit")
        child.expect("Left it as it is.")
        child.expect("›")
        child.sendline("/exit")
        child.expect(pexpect.EOF)
    assert (tmp_path / "app.py").read_text() == "x = 1\ny = 2\n"


def test_always_allow_is_remembered_for_the_project_across_sessions(tmp_path: Path) -> None:
    touch = {"tool_calls": [{"name": "shell", "arguments": {"command": "touch made.txt"}}]}
    with chat(tmp_path, [touch, "Made it."]) as (child, _):
        child.expect("›")
        child.sendline("Make the file.")
        child.expect("The agent wants to run:")
        child.expect("Allow\\? .*\\[a\\]lways this command")
        child.sendline("a")
        child.expect("always allowed in this project")
        child.expect("Made it.")
        child.expect("›")
        child.sendline("/exit")
        child.expect(pexpect.EOF)
    (tmp_path / "made.txt").unlink()
    with chat(tmp_path, [touch, "Made it again."]) as (child, _):
        child.expect("›")
        child.sendline("Make it again.")
        child.expect("Made it again.")
        assert "Allow?" not in child.before
        child.expect("›")
        child.sendline("/mode plan")
        child.expect("mode: plan — read-only tools only")
        child.expect("›")
        child.sendline("/exit")
        child.expect(pexpect.EOF)
    assert (tmp_path / "made.txt").exists()
