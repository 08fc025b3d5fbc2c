"""Kenning as Claude Code's learning loop, end to end, in a temporary HOME.

Hook events as Claude Code sends them (its documented input: session_id,
transcript_path, cwd, hook_event_name) run the command `install` wrote into
settings.json, through a real shell; the detached worker archives the
transcript, a review (a scripted model served over HTTP) makes a skill, the
skill appears in ~/.claude/skills, a patch follows it there, and `uninstall`
leaves the host's files exactly as they were.
"""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from kenning.archive.store import Archive
from kenning.cli import cli
from kenning.home import Home
from kenning.skills.guards import Writer
from kenning.skills.library import SkillLibrary
from kenning.testing.models import tool_call
from kenning.testing.wire import OpenAIServer

SESSION = "9e1f0c3a-2b4d-4e8f-a6c1-7d3e5b2a9f10"
SKILL = """\
---
name: pantry-expiry-tests
description: Fix the pantry expiry tests when they fail after midnight. Use when test_expiry fails.
---
# Pantry expiry tests

1. Freeze the clock with the fixture.
2. Run `pytest tests/test_expiry.py`.
"""


def run(*args: str, code: int = 0) -> Result:
    result = CliRunner().invoke(cli, list(args))
    assert result.exit_code == code, result.output
    assert "Traceback" not in result.output
    return result


def tree(root: Path, skip: Path) -> dict[str, bytes | None]:
    """Every file (its bytes) and folder (None) under ``root``, but ``skip``."""
    found: dict[str, bytes | None] = {}
    for path in sorted(root.rglob("*")):
        if path == skip or skip in path.parents:
            continue
        found[str(path.relative_to(root))] = path.read_bytes() if path.is_file() else None
    return found


def line(kind: str, n: int, **fields: Any) -> str:
    event = {
        "parentUuid": None,
        "isSidechain": False,
        "userType": "external",
        "cwd": "/home/ada/src/pantry",
        "sessionId": SESSION,
        "version": "2.0.14",
        "type": kind,
        "uuid": f"d0000000-0000-4000-8000-{n:012d}",
        "timestamp": f"2026-11-30T10:{n:02d}:00.000Z",
        **fields,
    }
    return json.dumps(event) + "\n"


def user(n: int, text: str) -> str:
    return line("user", n, message={"role": "user", "content": text})


def reply(n: int, text: str) -> str:
    message = {
        "id": f"msg_{n}",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": [{"type": "text", "text": text}],
        "usage": {"input_tokens": 100, "output_tokens": 20},
    }
    return line("assistant", n, message=message)


@pytest.fixture
def user_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A HOME with a Claude Code user already set up their own way."""
    home = tmp_path / "user"
    claude = home / ".claude"
    (claude / "skills" / "my-own").mkdir(parents=True)
    (claude / "skills" / "my-own" / "SKILL.md").write_text(
        "---\nname: my-own\ndescription: Mine. Use when I say so.\n---\nMine.\n"
    )
    own_hook = {"hooks": [{"type": "command", "command": "notify-send done"}]}
    settings = {"model": "opus", "hooks": {"Stop": [own_hook]}}
    (claude / "settings.json").write_text(json.dumps(settings, indent=4) + "\n")
    state = {"numStartups": 3, "mcpServers": {"other": {"command": "other-mcp", "args": []}}}
    # As Claude Code writes it: two-space indent, no final newline.
    (home / ".claude.json").write_text(json.dumps(state, indent=2))
    (claude / "CLAUDE.md").write_text("Always answer in English.")  # no final newline
    monkeypatch.setenv("HOME", str(home))
    return home


def wait_for(check: Callable[[], Any], what: str, timeout: float = 90.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


def test_sessions_flow_in_skills_flow_out_and_uninstall_leaves_no_trace(
    user_home: Path, _hermetic_home: Path
) -> None:
    projects = user_home / ".claude" / "projects"
    before = tree(user_home, projects)
    script = [
        tool_call("skill_manage", action="create", name="pantry-expiry-tests", content=SKILL),
        "Saved the method as a skill.",
        *["Nothing to save."] * 4,
    ]
    with OpenAIServer(script) as server:
        _hermetic_home.mkdir(parents=True, exist_ok=True)
        (_hermetic_home / "config.toml").write_text(
            f'[model]\ndefault = "local-model"\nbase_url = "{server.base_url}"\n'
            '[embedding]\nprovider = "none"\n'
            "[review]\nmemory_every_user_turns = 2\nskills_every_iterations = 2\n",
            encoding="utf-8",
        )
        kenning_home = Home.open(_hermetic_home)
        done = run("hosts", "install", "claude-code", "--yes")
        assert "registered the MCP server" in done.output
        settings = json.loads((user_home / ".claude" / "settings.json").read_text())
        assert settings["model"] == "opus"
        assert settings["hooks"]["Stop"][0]["hooks"][0]["command"] == "notify-send done"
        command = settings["hooks"]["Stop"][1]["hooks"][0]["command"]
        assert set(settings["hooks"]) == {"Stop", "PreCompact", "SessionEnd"}
        state = json.loads((user_home / ".claude.json").read_text())
        assert state["numStartups"] == 3 and set(state["mcpServers"]) == {"other", "kenning"}
        claude_md = (user_home / ".claude" / "CLAUDE.md").read_text()
        assert (
            claude_md.startswith("Always answer in English.\n@")
            and "claude-code-memory.md" in claude_md
        )

        transcript = projects / "-home-ada-src-pantry" / f"{SESSION}.jsonl"
        transcript.parent.mkdir(parents=True)

        def hook(event: str) -> None:
            payload = {
                "session_id": SESSION,
                "transcript_path": str(transcript),
                "cwd": "/home/ada/src/pantry",
                "hook_event_name": event,
                "permission_mode": "default",
            }
            # What the hook costs the host is `kenning bench hosts`' (no test times it).
            subprocess.run(["sh", "-c", command], input=json.dumps(payload), text=True, check=True)

        def archived() -> list[Any]:
            archive = Archive(kenning_home.layout.state_db)
            try:
                found = archive.sessions_by_host_id(SESSION)
                return [m for s in found for m in archive.messages(s)]
            finally:
                archive.close()

        Archive(kenning_home.layout.state_db).close()  # made before the worker and the test open it
        transcript.write_text(
            user(1, "The expiry test fails after midnight again.")
            + reply(2, "The clock is not frozen; I froze it with the fixture and it passes.")
        )
        hook("Stop")
        wait_for(lambda: len(archived()) == 2, "the first turn to be archived")
        with transcript.open("a") as handle:
            handle.write('{"type": "user", "sessionId": "' + SESSION + '", "message": {"ro\n')
            handle.write(user(3, "Thanks. Remember how you did it."))
            handle.write(reply(4, "Noted: freeze the clock, then run the expiry tests."))
        hook("Stop")
        exported = user_home / ".claude" / "skills" / "pantry-expiry-tests" / "SKILL.md"
        wait_for(exported.exists, "the reviewed skill to reach ~/.claude/skills")
        messages = archived()
        assert [m.role for m in messages] == ["user", "assistant", "user", "assistant"]
        assert "Freeze the clock" in exported.read_text()
        assert (
            (user_home / ".claude" / "skills" / "my-own" / "SKILL.md")
            .read_text()
            .endswith("Mine.\n")
        )  # the user's own skill, untouched

        # Kenning patches the skill (as its agent would, in any session): it follows.
        library = SkillLibrary.for_home(kenning_home)
        library.patch(
            "pantry-expiry-tests",
            "1. Freeze the clock with the fixture.",
            "1. Freeze the clock with the `frozen` fixture.",
            by=Writer("agent", "s1"),
        )
        hook("PreCompact")
        wait_for(lambda: "`frozen` fixture" in exported.read_text(), "the patch to follow")
        assert len(archived()) == 4  # the same lines were not archived twice

        status = run("hosts", "status", "claude-code").output
        assert "skills exported: pantry-expiry-tests" in status
        assert "sessions archived from Claude Code: 1" in status
        run("hosts", "uninstall", "claude-code")
    assert tree(user_home, projects) == before
