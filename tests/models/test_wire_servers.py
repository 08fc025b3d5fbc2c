"""The wire servers themselves: scripts from JSON, recording, and the CLI."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from kenning.models import AnthropicModel, ChatMessage, ModelError, ModelResponse, OpenAIChatModel
from kenning.models.retry import RetryPolicy
from kenning.testing import tool_call
from kenning.testing.wire import (
    AuthError,
    ContextOverflow,
    Delay,
    OpenAIServer,
    RateLimited,
    RawResponse,
    ScriptError,
    ServerError,
    Truncated,
    load_script,
)

CONVERSATION = [
    {
        "text": "",
        "tool_calls": [{"name": "read_file", "id": "call_1", "arguments": {"path": "a.txt"}}],
    },
    "The file says hi.",
]


def test_load_script_understands_every_item() -> None:
    items = load_script(
        [
            "plain",
            {"text": "t", "usage": {"input_tokens": 3, "output_tokens": 4}},
            {"tool_calls": [{"name": "f", "arguments": '{"broken": '}]},
            {"error": "rate_limit", "retry_after": 0.5},
            {"error": "server", "status": 529},
            {"error": "auth"},
            {"error": "context_overflow", "style": "llamacpp"},
            {"delay": 2, "then": "late"},
            {"truncate": "cut", "after_events": 2},
            {"status": 418, "body": {"error": {"message": "teapot"}}, "headers": {"x": "y"}},
        ]
    )
    assert items[0] == "plain"
    assert isinstance(items[1], ModelResponse) and items[1].usage.output_tokens == 4
    assert isinstance(items[2], ModelResponse)
    assert items[2].message.tool_calls[0].arguments == '{"broken": '
    assert items[3:] == [
        RateLimited(0.5),
        ServerError(529),
        AuthError(),
        ContextOverflow("llamacpp"),
        Delay(2.0, "late"),
        Truncated("cut", 2),
        RawResponse(418, {"error": {"message": "teapot"}}, {"x": "y"}),
    ]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"text": "not a list"}, "JSON list"),
        ([42], "item 0: expected a string or an object"),
        ([{"error": "gremlins"}], "unknown error 'gremlins'"),
        ([{"tool_calls": [{"arguments": {}}]}], "needs a name"),
        ([{"truncate": {"error": "auth"}}], "truncate needs a reply"),
        ([{"something": 1}], "needs one of"),
    ],
)
def test_load_script_errors_say_which_item(data: Any, message: str) -> None:
    with pytest.raises(ScriptError, match=message):
        load_script(data)


def test_model_errors_in_a_script_become_http_failures() -> None:
    script: list[Any] = [
        ModelError("rate_limit", "slow", retry_after=0),
        ModelError("auth", "no"),
        "ok",
    ]
    waits: list[float] = []

    async def sleep(s: float) -> None:
        waits.append(s)

    with OpenAIServer(script) as server:
        model = OpenAIChatModel("m", base_url=server.base_url, retry=RetryPolicy(sleep=sleep))
        with pytest.raises(ModelError) as caught:
            asyncio.run(model.request([ChatMessage.user("x")]))
        assert caught.value.kind == "auth" and waits == [0.0]
        assert asyncio.run(model.request([ChatMessage.user("x")])).message.content == "ok"
        server.assert_complete()


def test_exhausted_script_is_a_clear_error_and_leftovers_fail() -> None:
    with OpenAIServer([]) as server:
        model = OpenAIChatModel("m", base_url=server.base_url)
        with pytest.raises(ModelError, match="script has no reply left for request #1"):
            asyncio.run(model.request([ChatMessage.user("x")]))
    with (
        OpenAIServer(["never asked"]) as server,
        pytest.raises(AssertionError, match="1 script item"),
    ):
        server.assert_complete()


def test_recorded_requests() -> None:
    with OpenAIServer(["a"]) as server:
        server.add("b")
        model = OpenAIChatModel("m", base_url=server.base_url, headers={"X-Trace": "t1"})
        asyncio.run(model.request([ChatMessage.user("one")]))
        asyncio.run(model.request([ChatMessage.user("two")]))
    first, second = server.requests
    assert first.method == "POST" and first.path == "/v1/chat/completions"
    assert first.headers["x-trace"] == "t1" and first.messages == [
        {"role": "user", "content": "one"}
    ]
    assert second.messages[0]["content"] == "two" and not second.stream
    assert server.port > 0 and server.base_url.endswith("/v1")


@pytest.mark.parametrize("fmt", ["openai", "anthropic"])
def test_cli_serves_a_scripted_conversation(tmp_path: Path, fmt: str) -> None:
    script = tmp_path / "conversation.json"
    script.write_text(json.dumps(CONVERSATION), encoding="utf-8")
    log = tmp_path / "requests.jsonl"
    command = [sys.executable, "-m", "kenning.testing.wire", fmt, "--script", str(script)]
    command += ["--requests", str(log)]
    with subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    ) as proc:
        try:
            assert proc.stdout is not None
            url = proc.stdout.readline().strip()
            assert url.startswith("http://127.0.0.1:")
            model: Any
            if fmt == "openai":
                model = OpenAIChatModel("scripted", base_url=url)
            else:
                model = AnthropicModel("scripted", base_url=url)

            async def run() -> tuple[ModelResponse, ModelResponse]:
                first = await model.request([ChatMessage.user("What is in a.txt?")])
                events = [e async for e in model.stream([ChatMessage.user("again")])]
                return first, events[-1].response

            first, second = asyncio.run(run())
        finally:
            proc.terminate()
            _, stderr = proc.communicate(timeout=10)
    assert first.message.tool_calls == (tool_call("read_file", call_id="call_1", path="a.txt"),)
    assert second.message.content == "The file says hi."
    assert proc.returncode == 0, stderr
    assert "served 2 requests; 0 script items left" in stderr
    logged = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    assert len(logged) == 2 and logged[0]["body"]["model"] == "scripted"
    assert "What is in a.txt?" in json.dumps(logged[0]["body"]["messages"])
    assert logged[1]["body"]["stream"] is True


def test_cli_rejects_a_bad_script(tmp_path: Path) -> None:
    script = tmp_path / "bad.json"
    script.write_text('[{"error": "gremlins"}]', encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "kenning.testing.wire", "openai", "--script", str(script)],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 2 and "unknown error 'gremlins'" in done.stderr
