"""Both adapters over real sockets, against the local wire-format servers.

Each test runs for the OpenAI and the Anthropic format (the ``wire``
fixture), and where it matters both as a plain request and as a stream.
"""

from __future__ import annotations

import asyncio
import json
import socket
import time
from collections.abc import Callable
from typing import Any

import pytest

from kenning.models import (
    ChatMessage,
    ModelError,
    ModelResponse,
    ModelSettings,
    ResponseDone,
    TextDelta,
    ToolArgumentsError,
    ToolCallDelta,
    ToolSpec,
    Usage,
)
from kenning.models.retry import RetryPolicy
from kenning.testing import reply, tool_call
from kenning.testing.wire import (
    AuthError,
    ContextOverflow,
    Delay,
    RateLimited,
    RawResponse,
    ServerError,
    Truncated,
)

MESSAGES = [ChatMessage.system("You are terse."), ChatMessage.user("Say hello.")]
TOOLS = [
    ToolSpec(
        "read_file", "Read a file.", {"type": "object", "properties": {"path": {"type": "string"}}}
    ),
    ToolSpec("list_files", "List files.", {"type": "object"}),
]
MODES = ["request", "stream"]


async def ask(
    model: Any, mode: str, messages: list[ChatMessage] = MESSAGES, **kw: Any
) -> ModelResponse:
    """The final response, by ``request`` or by reading the stream to its end."""
    if mode == "request":
        response: ModelResponse = await model.request(messages, **kw)
        return response
    events = [event async for event in model.stream(messages, **kw)]
    assert isinstance(events[-1], ResponseDone)
    assert not any(isinstance(e, ResponseDone) for e in events[:-1])
    return events[-1].response


@pytest.mark.parametrize("mode", MODES)
def test_text_answer_with_usage(wire: Any, mode: str) -> None:
    usage = Usage(input_tokens=120, output_tokens=9, cache_read_tokens=100)
    with wire.server([reply("Hello, world.", usage=usage)]) as server:
        response = asyncio.run(ask(wire.model(server), mode))
        server.assert_complete()
    assert response.message == ChatMessage.assistant("Hello, world.")
    assert response.finish_reason == "stop"
    assert response.usage == usage
    assert response.model == server.requests[0].body["model"]


def test_streaming_text_arrives_in_pieces(wire: Any, collect: Callable[..., Any]) -> None:
    text = "The quick brown fox jumps over the lazy dog."
    with wire.server([text]) as server:
        events, error = asyncio.run(collect(wire.model(server).stream(MESSAGES)))
    assert error is None
    deltas = [e.text for e in events if isinstance(e, TextDelta)]
    assert len(deltas) > 3 and "".join(deltas) == text
    assert isinstance(events[-1], ResponseDone)
    assert events[-1].response.message.content == text
    assert events[-1].response.usage.output_tokens > 0
    assert server.requests[0].body["stream"] is True


@pytest.mark.parametrize("mode", MODES)
def test_parallel_tool_calls(wire: Any, mode: str) -> None:
    first = tool_call("read_file", call_id="call_a", path="docs/a long file name.md")
    second = tool_call("list_files", call_id="call_b", pattern="*.py", recursive=True)
    with wire.server([reply("Looking.", first, second)]) as server:
        response = asyncio.run(ask(wire.model(server), mode, tools=TOOLS))
    assert response.finish_reason == "tool_calls"
    assert response.message.content == "Looking."
    assert response.message.tool_calls == (first, second)
    assert response.message.tool_calls[0].parsed() == {"path": "docs/a long file name.md"}


def test_streamed_tool_call_deltas(wire: Any, collect: Callable[..., Any]) -> None:
    first = tool_call("read_file", call_id="call_a", path="src/kenning/models/types.py")
    second = tool_call("list_files", call_id="call_b", pattern="**/*.md")
    with wire.server([reply("", first, second)]) as server:
        events, error = asyncio.run(collect(wire.model(server).stream(MESSAGES, tools=TOOLS)))
    assert error is None
    deltas = [e for e in events if isinstance(e, ToolCallDelta)]
    for index, call in enumerate((first, second)):
        mine = [d for d in deltas if d.index == index]
        assert mine[0].id == call.id and mine[0].name == call.name
        assert len([d for d in mine if d.arguments]) > 1  # split across several deltas
        assert "".join(d.arguments for d in mine) == call.arguments
    # parallel calls stream one after the other
    assert [d.index for d in deltas] == sorted(d.index for d in deltas)
    done = events[-1]
    assert isinstance(done, ResponseDone)
    assert done.response.message.tool_calls == (first, second)


@pytest.mark.parametrize("mode", MODES)
def test_rate_limit_honours_retry_after(
    wire: Any, mode: str, sleeps: Any, policy: Callable[..., RetryPolicy]
) -> None:
    with wire.server([RateLimited(retry_after=0.25), "after the pause"]) as server:
        response = asyncio.run(ask(wire.model(server, retry=policy()), mode))
        server.assert_complete()
    assert response.message.content == "after the pause"
    assert sleeps.waits == [0.25]
    assert len(server.requests) == 2


def test_rate_limit_really_waits(wire: Any) -> None:
    with wire.server([RateLimited(retry_after=0.05), "ok"]) as server:
        started = time.monotonic()
        response = asyncio.run(ask(wire.model(server, retry=RetryPolicy(max_retries=1)), "request"))
        elapsed = time.monotonic() - started
    assert response.message.content == "ok"
    assert elapsed >= 0.05


def test_rate_limit_asking_too_long_is_not_waited_for(
    wire: Any, sleeps: Any, policy: Callable[..., RetryPolicy]
) -> None:
    with (
        wire.server([RateLimited(retry_after=3600), "never"]) as server,
        pytest.raises(ModelError) as caught,
    ):
        asyncio.run(ask(wire.model(server, retry=policy()), "request"))
    assert caught.value.kind == "rate_limit" and caught.value.retry_after == 3600
    assert "try again later" in str(caught.value)
    assert sleeps.waits == []


@pytest.mark.parametrize("mode", MODES)
def test_server_error_then_success(
    wire: Any, mode: str, sleeps: Any, policy: Callable[..., RetryPolicy]
) -> None:
    with wire.server([ServerError(500), "recovered"]) as server:
        response = asyncio.run(ask(wire.model(server, retry=policy(base_delay_s=0.5)), mode))
        server.assert_complete()
    assert response.message.content == "recovered"
    assert len(sleeps.waits) == 1 and 0.25 <= sleeps.waits[0] <= 0.5


def test_server_errors_give_up_after_max_retries(
    wire: Any, sleeps: Any, policy: Callable[..., RetryPolicy]
) -> None:
    with (
        wire.server([ServerError(503)] * 3 + ["unreached"]) as server,
        pytest.raises(ModelError) as caught,
    ):
        asyncio.run(ask(wire.model(server, retry=policy(max_retries=2)), "request"))
    assert caught.value.kind == "server" and caught.value.status == 503
    assert "gave up after 3 attempts" in str(caught.value)
    assert len(server.requests) == 3 and len(sleeps.waits) == 2


@pytest.mark.parametrize("mode", MODES)
def test_timeout_is_classified(wire: Any, mode: str, policy: Callable[..., RetryPolicy]) -> None:
    with wire.server([Delay(5, "too late")]) as server:
        model = wire.model(server, retry=policy(max_retries=0), timeout_s=0.2)
        started = time.monotonic()
        with pytest.raises(ModelError) as caught:
            asyncio.run(ask(model, mode))
        waited = time.monotonic() - started
    assert caught.value.kind == "timeout" and caught.value.transient
    assert waited < 4  # gave up, rather than waiting for the server's 5 s answer


def test_timeout_then_retry_succeeds(wire: Any, policy: Callable[..., RetryPolicy]) -> None:
    with wire.server([Delay(5, "too late"), "in time"]) as server:
        model = wire.model(server, retry=policy(max_retries=1))
        settings = ModelSettings(timeout_s=0.2)  # per-request override of the adapter's
        response = asyncio.run(ask(model, "stream", settings=settings))
    assert response.message.content == "in time"


@pytest.mark.parametrize("mode", MODES)
def test_auth_error_is_not_retried(
    wire: Any, mode: str, sleeps: Any, policy: Callable[..., RetryPolicy]
) -> None:
    with wire.server(["never sent"], api_key="the-right-key") as server:
        model = wire.model(server, api_key="a-wrong-key", key_env="MY_KEY_VAR", retry=policy())
        with pytest.raises(ModelError) as caught:
            asyncio.run(ask(model, mode))
    error = caught.value
    assert error.kind == "auth" and error.status == 401 and not error.transient
    assert "authentication failed" in str(error) and "MY_KEY_VAR" in str(error)
    assert len(server.requests) == 1 and sleeps.waits == []


def test_scripted_auth_error(wire: Any) -> None:
    with wire.server([AuthError()]) as server, pytest.raises(ModelError) as caught:
        asyncio.run(ask(wire.model(server), "request"))
    assert caught.value.kind == "auth"


@pytest.mark.parametrize("mode", MODES)
def test_context_overflow_is_recognised(wire: Any, mode: str, sleeps: Any, policy: Any) -> None:
    with wire.server([ContextOverflow()]) as server, pytest.raises(ModelError) as caught:
        asyncio.run(ask(wire.model(server, retry=policy()), mode))
    assert caught.value.kind == "context_overflow" and caught.value.status == 400
    assert len(server.requests) == 1 and sleeps.waits == []


@pytest.mark.parametrize("mode", MODES)
def test_malformed_tool_arguments_arrive_intact(wire: Any, mode: str) -> None:
    broken = tool_call("read_file", call_id="call_x", raw='{"path": "notes.md", ')
    with wire.server([reply("", broken), "Fixed it."]) as server:
        model = wire.model(server)
        response = asyncio.run(ask(model, mode, tools=TOOLS))
        (call,) = response.message.tool_calls
        assert call == broken
        with pytest.raises(ToolArgumentsError) as caught:
            call.parsed()
        assert "read_file" in str(caught.value) and "not valid JSON" in str(caught.value)
        # The loop answers with a tool error; the adapter must send that history back.
        history = [
            *MESSAGES,
            response.message,
            ChatMessage.tool(call.id, call.name, f"error: {caught.value}"),
        ]
        again = asyncio.run(ask(model, "request", history, tools=TOOLS))
    assert again.message.content == "Fixed it."
    assert "call_x" in server.requests[1].raw.decode()


def test_stream_cut_after_delivery_is_not_retried(
    wire: Any, collect: Callable[..., Any], sleeps: Any, policy: Any
) -> None:
    text = "one two three four five six seven eight nine ten"
    with wire.server([Truncated(text, after_events=6), "a second answer"]) as server:
        model = wire.model(server, retry=policy())
        events, error = asyncio.run(collect(model.stream(MESSAGES)))
        assert server.remaining == 1  # the second answer was never requested
    assert error is not None and error.kind == "truncated"
    assert "cut short" in str(error) and "cannot reach" not in str(error)
    delivered = "".join(e.text for e in events if isinstance(e, TextDelta))
    assert delivered and text.startswith(delivered) and delivered != text
    assert sleeps.waits == []


def test_stream_cut_before_any_event_is_retried(
    wire: Any, collect: Callable[..., Any], policy: Any
) -> None:
    with wire.server([Truncated("lost", after_events=1), "complete"]) as server:
        events, error = asyncio.run(collect(wire.model(server, retry=policy()).stream(MESSAGES)))
    assert error is None
    assert events[-1].response.message.content == "complete"
    assert "lost" not in "".join(e.text for e in events if isinstance(e, TextDelta))


def test_truncated_body_is_retried(wire: Any, policy: Any) -> None:
    with wire.server([Truncated("cut short"), "whole"]) as server:
        response = asyncio.run(ask(wire.model(server, retry=policy()), "request"))
    assert response.message.content == "whole"


def test_wrong_path_is_not_found(wire: Any) -> None:
    with wire.server(["unused"]) as server:
        model = wire.model(server)
        model.endpoint = type(model.endpoint)(
            url=server.origin + "/nowhere", headers=model.endpoint.headers, provider="test"
        )
        with pytest.raises(ModelError) as caught:
            asyncio.run(model.request(MESSAGES))
    assert caught.value.kind == "not_found" and caught.value.status == 404


def test_nothing_listening_on_loopback_is_reported_without_retrying(
    wire: Any, sleeps: Any, policy: Any
) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = wire.server()  # never started: only its URL shape is used
    server._address = ("127.0.0.1", port)
    with pytest.raises(ModelError) as caught:
        asyncio.run(ask(wire.model(server, retry=policy(max_retries=1)), "request"))
    # A refused connection on this machine: no server runs there, and retrying
    # for seconds will not start one.
    assert caught.value.kind == "unreachable" and not caught.value.transient
    assert f"nothing is listening at http://127.0.0.1:{port}" in str(caught.value)
    assert "kenning setup" in str(caught.value)
    assert sleeps.waits == []


def test_error_inside_a_stream_is_classified_and_retried(
    wire: Any, collect: Callable[..., Any], policy: Any
) -> None:
    if wire.name == "openai":  # OpenRouter style: an error object inside a 200 stream
        body = 'data: {"error": {"message": "Provider returned error", "code": 502}}\n\n'
    else:
        error = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
        body = f"event: error\ndata: {json.dumps(error)}\n\n"
    with wire.server([RawResponse(200, body), "fine now"]) as server:
        events, error = asyncio.run(collect(wire.model(server, retry=policy()).stream(MESSAGES)))
    assert error is None and events[-1].response.message.content == "fine now"


def test_unexpected_success_body_is_a_bad_response_not_retried(
    wire: Any, policy: Any, sleeps: Any
) -> None:
    with wire.server([RawResponse(200, "<html>proxy</html>")] * 2) as server:
        with pytest.raises(ModelError) as caught:
            asyncio.run(ask(wire.model(server, retry=policy(max_retries=1)), "request"))
        assert server.remaining == 1  # the same URL would give the same page
    assert caught.value.kind == "bad_response" and "<html>proxy</html>" in str(caught.value)
    assert sleeps.waits == []
