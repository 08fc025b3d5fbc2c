"""`kenning run` end to end over the local OpenAI-format server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from kenning.cli import cli
from kenning.home import Home
from kenning.testing.models import tool_call
from kenning.testing.wire import (
    AnthropicServer,
    AuthError,
    OpenAIServer,
    RawResponse,
    RawStream,
    WireServer,
)


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


# -- answers that are not answers --------------------------------------------------

FORMATS = {"openai": (OpenAIServer, "local-model"), "anthropic": (AnthropicServer, "anthropic:m")}


def _empty(fmt: str) -> RawStream | str:
    """A server with nothing to say: OpenAI's empty choices stream, Anthropic's empty message."""
    return RawStream(({"choices": []}, "[DONE]")) if fmt == "openai" else ""


def _run(server: WireServer, model: str, *args: str, retries: int = 4) -> Result:
    settings = [
        "--set",
        f"model.base_url={server.base_url}",
        "--set",
        f"model.max_retries={retries}",
    ]
    return CliRunner().invoke(cli, [*settings, "run", "-m", model, *args])


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_an_empty_answer_fails_the_run_and_is_not_archived_as_final(fmt: str) -> None:
    server_cls, model = FORMATS[fmt]
    with server_cls([_empty(fmt), _empty(fmt)]) as server:
        result = _run(server, model, "Say something.")
        assert len(server.requests) == 2  # retried once
    assert result.exit_code == 1, result.output
    assert "the model returned an empty response" in result.stderr
    assert "Try again, or use another model" in result.stderr
    assert "Traceback" not in result.output
    home = Home.open()
    session = home.archive.sessions(limit=1)[0]
    assert session.end_reason == "error"
    messages = home.archive.messages(session.id)
    assert [m.role for m in messages] == ["user"]  # no empty assistant message


def test_an_empty_answer_in_json_mode_ends_the_turn_with_the_error() -> None:
    with OpenAIServer([_empty("openai")]) as server:
        result = _run(server, "local-model", "--json", "hi", retries=0)
    assert result.exit_code == 1
    events = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    assert not [e for e in events if e["type"] == "model_replied"]
    last = events[-1]
    assert last["type"] == "turn_ended" and last["reason"] == "error" and last["answer"] == ""
    assert "empty response" in last["error"]


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_an_html_page_is_reported_as_what_it_is(fmt: str) -> None:
    server_cls, model = FORMATS[fmt]
    page = RawResponse(200, "<html><title>Open WebUI</title></html>", content_type="text/html")
    with server_cls([page]) as server:
        result = _run(server, model, "hi")
        assert len(server.requests) == 1  # not retried: the same URL gives the same page
    assert result.exit_code == 1
    assert "Could not reach" not in result.stderr and "cannot reach" not in result.stderr
    assert "HTTP 200 (text/html)" in result.stderr and "<title>Open WebUI</title>" in result.stderr
    assert "Is base_url right" in result.stderr
