"""`kenning run` end to end over the local OpenAI-format server."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from kenning.cli import cli
from kenning.home import Home
from kenning.testing.models import tool_call
from kenning.testing.wire import AuthError, OpenAIServer


def test_without_a_model_it_says_how_to_configure_one() -> None:
    result = CliRunner().invoke(cli, ["run", "hello"])
    assert result.exit_code == 2
    assert "No model is configured" in result.output
    assert "--model" in result.output and "OPENAI_API_KEY" in result.output
    assert "Traceback" not in result.output


def test_run_answers_with_a_tool_call_and_archives_everything(tmp_path: Path) -> None:
    (tmp_path / "todo.txt").write_text("ship the release\n")
    script = [tool_call("read_file", path="todo.txt"), "The TODO is: ship the release."]
    with OpenAIServer(script) as server:
        result = CliRunner().invoke(
            cli,
            [
                "--set",
                f"model.base_url={server.base_url}",
                "run",
                "--model",
                "local-model",
                "--cwd",
                str(tmp_path),
                "What is on my TODO list?",
            ],
        )
        requests = list(server.requests)
    assert result.exit_code == 0, result.output
    assert "The TODO is: ship the release." in result.stdout
    assert len(requests) == 2
    assert requests[0].body["model"] == "local-model" and requests[0].body["stream"] is True
    home = Home.open()
    session = home.archive.sessions(limit=1)[0]
    assert session.source == "run" and session.end_reason == "final"
    roles = [m.role for m in home.archive.messages(session.id)]
    assert roles == ["user", "assistant", "tool", "assistant"]


def test_run_json_streams_events_and_exit_code_reports_failure(tmp_path: Path) -> None:
    with OpenAIServer([AuthError()]) as server:
        result = CliRunner().invoke(
            cli,
            ["--set", f"model.base_url={server.base_url}", "run", "--json", "-m", "m", "hi"],
        )
    assert result.exit_code == 1
    events = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    assert events[0]["type"] == "turn_started"
    assert events[-1]["type"] == "turn_ended" and events[-1]["reason"] == "error"
