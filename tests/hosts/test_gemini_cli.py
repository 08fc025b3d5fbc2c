"""Gemini CLI as a second host: install, hook-driven archiving, uninstall, in a temporary HOME.

The session file is in Gemini CLI's JSON Lines record format
(chatRecordingService: a metadata line, message records — a gemini message
written again whole when its tool call's result arrives — ``$set`` updates).
"""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from kenning.archive.store import Archive
from kenning.cli import cli
from kenning.hosts.gemini_cli import parse_lines

SESSION = "3f6a1c2e-8b9d-4e0f-a1b2-c3d4e5f60718"


def run(*args: str, code: int = 0) -> Result:
    result = CliRunner().invoke(cli, list(args))
    assert result.exit_code == code, result.output
    assert "Traceback" not in result.output
    return result


def tree(root: Path, skip: Path) -> dict[str, bytes | None]:
    return {
        str(p.relative_to(root)): p.read_bytes() if p.is_file() else None
        for p in sorted(root.rglob("*"))
        if p != skip and skip not in p.parents
    }


def records() -> list[dict[str, Any]]:
    call = {
        "id": "run_shell_command-1",
        "name": "run_shell_command",
        "args": {"command": "pytest -q"},
        "status": "executing",
        "timestamp": "2026-11-30T09:00:03.000Z",
    }
    answered = {
        **call,
        "status": "success",
        "result": [
            {
                "functionResponse": {
                    "id": "run_shell_command-1",
                    "name": "run_shell_command",
                    "response": {"output": "3 passed"},
                }
            }
        ],
    }
    reply = {
        "id": "m2",
        "timestamp": "2026-11-30T09:00:02.000Z",
        "type": "gemini",
        "content": "Running the tests.",
        "model": "gemini-2.5-pro",
        "tokens": {"input": 900, "output": 12, "cached": 0, "total": 912},
    }
    return [
        {"sessionId": SESSION, "projectHash": "ab12", "startTime": "2026-11-30T09:00:00.000Z"},
        {
            "id": "m0",
            "timestamp": "2026-11-30T09:00:00.500Z",
            "type": "info",
            "content": "Model: pro",
        },
        {
            "id": "m1",
            "timestamp": "2026-11-30T09:00:01.000Z",
            "type": "user",
            "content": [{"text": "Do the tests pass on main?"}],
        },
        {**reply, "toolCalls": [call]},
        {**reply, "toolCalls": [answered]},  # written again once the result arrived
        {"$set": {"lastUpdated": "2026-11-30T09:00:04.000Z"}},
        {
            "id": "m3",
            "timestamp": "2026-11-30T09:00:05.000Z",
            "type": "gemini",
            "content": [{"text": "thinking…", "thought": True}, {"text": "Yes: 3 passed."}],
        },
    ]


def test_records_become_messages_and_a_rewritten_message_counts_once() -> None:
    messages, carry, title = parse_lines(records(), {}, SESSION)
    assert title == "Do the tests pass on main?"
    assert [(m.role, m.content) for m in messages] == [
        ("system", "Model: pro"),
        ("user", "Do the tests pass on main?"),
        ("assistant", "Running the tests."),
        ("tool", "3 passed"),
        ("assistant", "Yes: 3 passed."),
    ]
    call = messages[2]
    assert (
        call.tool_calls is not None
        and call.tool_calls[0]["function"]["name"] == "run_shell_command"
    )
    assert (messages[3].tool_call_id, messages[3].tool_name) == (
        "run_shell_command-1",
        "run_shell_command",
    )
    assert carry["model"] == "gemini-2.5-pro" and carry["ids"] == ["m0", "m1", "m2", "m3"]
    again, _, _ = parse_lines(records(), carry, SESSION)
    assert again == []  # what was archived is not archived twice


@pytest.fixture
def user_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "user"
    (home / ".gemini").mkdir(parents=True)
    settings = {"ui": {"theme": "GitHub"}, "mcpServers": {"other": {"command": "other-mcp"}}}
    (home / ".gemini" / "settings.json").write_text(json.dumps(settings, indent=2) + "\n")
    monkeypatch.setenv("HOME", str(home))
    return home


def test_gemini_cli_install_archive_and_uninstall(user_home: Path, _hermetic_home: Path) -> None:
    chats = user_home / ".gemini" / "tmp"
    before = tree(user_home, chats)
    run("hosts", "install", "gemini-cli", "--yes", "--no-review")
    settings = json.loads((user_home / ".gemini" / "settings.json").read_text())
    assert settings["ui"] == {"theme": "GitHub"}
    assert set(settings["mcpServers"]) == {"other", "kenning"}
    assert "type" not in settings["mcpServers"]["kenning"]
    assert set(settings["hooks"]) == {"AfterAgent", "PreCompress", "SessionEnd"}
    hook = settings["hooks"]["AfterAgent"][0]["hooks"][0]
    assert hook["name"] == "kenning" and hook["timeout"] == 10_000
    assert (user_home / ".gemini" / "GEMINI.md").read_text().startswith("@")

    transcript = chats / "ab12" / "chats" / "session-2026-11-30T09-00-3f6a1c2e.jsonl"
    transcript.parent.mkdir(parents=True)
    transcript.write_text("".join(json.dumps(r) + "\n" for r in records()))
    payload = {
        "session_id": SESSION,
        "transcript_path": str(transcript),
        "cwd": str(user_home),
        "hook_event_name": "AfterAgent",
        "timestamp": "2026-11-30T09:00:06.000Z",
    }
    Archive(
        _hermetic_home / "state.db"
    ).close()  # made before the worker and this test both open it
    done = subprocess.run(
        ["sh", "-c", hook["command"]], input=json.dumps(payload), text=True, capture_output=True
    )
    assert done.returncode == 0 and json.loads(done.stdout) == {}  # Gemini reads stdout as JSON
    deadline = time.monotonic() + 90
    roles: list[str] = []
    while time.monotonic() < deadline and len(roles) < 5:
        archive = Archive(_hermetic_home / "state.db")
        try:
            ids = archive.sessions_by_host_id(SESSION)
            roles = [m.role for s in ids for m in archive.messages(s)]
        finally:
            archive.close()
        time.sleep(0.2)
    assert roles == ["system", "user", "assistant", "tool", "assistant"]
    assert "sessions archived from Gemini CLI: 1" in run("hosts", "status", "gemini-cli").output
    run("hosts", "uninstall", "gemini-cli")
    assert tree(user_home, chats) == before
