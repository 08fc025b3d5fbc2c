"""Anthropic-format specifics: system, tool_use/tool_result blocks, caching, stream events."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from kenning.models import (
    AnthropicModel,
    ChatMessage,
    ModelError,
    ModelSettings,
    TextDelta,
    ToolCallDelta,
    ToolSpec,
    Usage,
)
from kenning.models.anthropic import StreamAssembler, messages_url, parse_message, wire_conversation
from kenning.testing import reply, tool_call
from kenning.testing.wire import AnthropicServer, RawResponse

TOOL = ToolSpec("read_file", "Read a file.", {"type": "object", "properties": {"path": {}}})


def test_request_body_on_the_wire() -> None:
    a = tool_call("read_file", call_id="toolu_a", path="a")
    b = tool_call("read_file", call_id="toolu_b", raw='{"path": ')  # malformed
    history = [
        ChatMessage.system("Identity."),
        ChatMessage.user("Read a and b."),
        ChatMessage.assistant("Reading both.", [a, b]),
        ChatMessage.tool("toolu_a", "read_file", "contents of a"),
        ChatMessage.tool("toolu_b", "read_file", "error: not valid JSON"),
        ChatMessage.system("Memory note."),  # joins the top-level system, in order
        ChatMessage.user("And?"),
    ]
    settings = ModelSettings(max_output_tokens=1000, temperature=0.5, parallel_tool_calls=False)
    with AnthropicServer(["ok"]) as server:
        model = AnthropicModel("claude-sonnet-4-5", base_url=server.base_url, api_key="sk-ant")
        asyncio.run(model.request(history, tools=[TOOL], settings=settings))
    request = server.requests[0]
    assert request.path == "/v1/messages"
    assert request.headers["x-api-key"] == "sk-ant"
    assert request.headers["anthropic-version"] == "2023-06-01"
    body = request.body
    assert body["model"] == "claude-sonnet-4-5" and body["max_tokens"] == 1000
    assert body["temperature"] == 0.5
    assert body["system"] == [
        {
            "type": "text",
            "text": "Identity.\n\nMemory note.",
            "cache_control": {"type": "ephemeral"},
        }
    ]
    assert body["tools"] == [
        {"name": "read_file", "description": "Read a file.", "input_schema": TOOL.parameters}
    ]
    assert body["tool_choice"] == {"type": "auto", "disable_parallel_tool_use": True}
    assert body["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "Read a and b."}]},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Reading both."},
                {"type": "tool_use", "id": "toolu_a", "name": "read_file", "input": {"path": "a"}},
                {"type": "tool_use", "id": "toolu_b", "name": "read_file", "input": {}},
            ],
        },
        {
            # both results in one user turn, the next user text after them
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "toolu_a", "content": "contents of a"},
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_b",
                    "content": "error: not valid JSON",
                },
                {"type": "text", "text": "And?", "cache_control": {"type": "ephemeral"}},
            ],
        },
    ]


def test_without_prompt_cache_and_defaults() -> None:
    model = AnthropicModel("claude-x", prompt_cache=False, max_output_tokens=2048)
    body = model.payload(
        [ChatMessage.system("s"), ChatMessage.user("u")], [], ModelSettings(), stream=True
    )
    assert body["system"] == [{"type": "text", "text": "s"}]
    assert body["messages"] == [{"role": "user", "content": [{"type": "text", "text": "u"}]}]
    assert body["max_tokens"] == 2048 and body["stream"] is True
    assert "tools" not in body and "tool_choice" not in body and "temperature" not in body


def test_empty_messages_are_dropped() -> None:
    system, turns = wire_conversation(
        [ChatMessage.user("hi"), ChatMessage.assistant(""), ChatMessage.user("again")]
    )
    assert system == ""
    assert turns == [
        {
            "role": "user",
            "content": [{"type": "text", "text": "hi"}, {"type": "text", "text": "again"}],
        }
    ]


def test_messages_url() -> None:
    assert messages_url("https://api.anthropic.com") == "https://api.anthropic.com/v1/messages"
    assert messages_url("https://proxy.example/v1/") == "https://proxy.example/v1/messages"


def test_cache_usage_round_trip_over_the_wire() -> None:
    usage = Usage(
        input_tokens=1000, output_tokens=20, cache_read_tokens=700, cache_write_tokens=200
    )
    with AnthropicServer([reply("cached", usage=usage), reply("cached", usage=usage)]) as server:
        model = AnthropicModel("claude-test", base_url=server.base_url)

        async def run() -> tuple[Any, Any]:
            plain = await model.request([ChatMessage.user("x")])
            events = [e async for e in model.stream([ChatMessage.user("x")])]
            return plain, events[-1].response

        plain, streamed = asyncio.run(run())
    assert plain.usage == usage and streamed.usage == usage
    # what the API itself reports: input_tokens excludes the cached parts
    assert server.requests and usage.input_tokens - 700 - 200 == 100


def sse_body(*events: dict[str, Any]) -> str:
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)


def test_stream_with_thinking_and_late_usage() -> None:
    body = sse_body(
        {
            "type": "message_start",
            "message": {"model": "claude-x", "usage": {"input_tokens": 10, "output_tokens": 1}},
        },
        {
            "type": "content_block_start",
            "index": 0,
            "content_block": {"type": "thinking", "thinking": ""},
        },
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "thinking_delta", "thinking": "hmm"},
        },
        {"type": "content_block_stop", "index": 0},
        {"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}},
        {
            "type": "content_block_delta",
            "index": 1,
            "delta": {"type": "text_delta", "text": "Answer"},
        },
        {
            "type": "content_block_start",
            "index": 2,
            "content_block": {"type": "tool_use", "id": "t1", "name": "noargs", "input": {}},
        },
        {
            "type": "content_block_delta",
            "index": 2,
            "delta": {"type": "input_json_delta", "partial_json": ""},
        },
        {
            "type": "message_delta",
            "delta": {"stop_reason": "tool_use"},
            "usage": {"output_tokens": 42, "input_tokens": 10, "cache_read_input_tokens": 5},
        },
        {"type": "message_stop"},
    )
    with AnthropicServer([RawResponse(200, body)]) as server:
        model = AnthropicModel("claude-x", base_url=server.base_url)

        async def run() -> list[Any]:
            return [e async for e in model.stream([ChatMessage.user("q")])]

        events = asyncio.run(run())
    assert [e.text for e in events if isinstance(e, TextDelta)] == ["Answer"]
    assert [(e.index, e.id, e.name) for e in events if isinstance(e, ToolCallDelta)] == [
        (0, "t1", "noargs")
    ]
    response = events[-1].response
    assert response.message.tool_calls[0].arguments == "{}"
    assert response.finish_reason == "tool_calls" and response.model == "claude-x"
    assert response.usage == Usage(input_tokens=15, output_tokens=42, cache_read_tokens=5)


def test_stream_cut_before_message_stop() -> None:
    assembler = StreamAssembler(provider="anthropic")
    assembler.feed({"type": "message_start", "message": {"usage": {"input_tokens": 1}}})
    with pytest.raises(ModelError) as caught:
        assembler.finish()
    assert caught.value.kind == "truncated"


def test_parse_message_stop_reasons() -> None:
    def message(stop: str) -> dict[str, Any]:
        return {"content": [{"type": "text", "text": "x"}], "stop_reason": stop, "usage": {}}

    assert parse_message(message("end_turn"), provider="a").finish_reason == "stop"
    assert parse_message(message("max_tokens"), provider="a").finish_reason == "length"
    assert parse_message(message("refusal"), provider="a").finish_reason == "content_filter"
    assert parse_message(message("pause_turn"), provider="a").finish_reason == "other"
    with pytest.raises(ModelError, match="JSON but not a Messages API message") as shape:
        parse_message({"nope": 1}, provider="a")
    assert shape.value.kind == "bad_response"


def test_missing_version_header_is_refused_like_the_real_api() -> None:
    with AnthropicServer(["unused"]) as server:
        model = AnthropicModel("claude-x", base_url=server.base_url)
        model.endpoint = type(model.endpoint)(
            url=model.endpoint.url, headers={}, provider="anthropic"
        )
        with pytest.raises(ModelError) as caught:
            asyncio.run(model.request([ChatMessage.user("q")]))
    assert caught.value.kind == "bad_request" and "anthropic-version" in str(caught.value)


def test_overloaded_529_is_retried() -> None:
    waits: list[float] = []

    async def sleep(s: float) -> None:
        waits.append(s)

    from kenning.models.retry import RetryPolicy
    from kenning.testing.wire import ServerError

    with AnthropicServer([ServerError(529), "ok"]) as server:
        model = AnthropicModel("claude-x", base_url=server.base_url, retry=RetryPolicy(sleep=sleep))
        assert asyncio.run(model.request([ChatMessage.user("q")])).message.content == "ok"
    assert len(waits) == 1
