"""OpenAI-format specifics: what goes on the wire, and the quirks of compatible servers."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from kenning.models import (
    ChatMessage,
    ModelError,
    ModelSettings,
    OpenAIChatModel,
    TextDelta,
    ToolCallDelta,
    ToolSpec,
    Usage,
)
from kenning.models.openai import StreamAssembler, parse_completion, wire_messages
from kenning.testing import tool_call
from kenning.testing.wire import OpenAIServer

TOOL = ToolSpec("read_file", "Read a file.", {"type": "object", "properties": {"path": {}}})


def test_request_body_on_the_wire() -> None:
    call = tool_call("read_file", call_id="call_1", raw='{"path": "a"')  # malformed, sent verbatim
    history = [
        ChatMessage.system("Be brief."),
        ChatMessage.user("Read a."),
        ChatMessage.assistant("", [call]),
        ChatMessage.tool("call_1", "read_file", "error: not valid JSON"),
    ]
    settings = ModelSettings(max_output_tokens=300, temperature=0.2, parallel_tool_calls=False)
    with OpenAIServer(["ok", "ok"]) as server:
        model = OpenAIChatModel("gpt-4.1-mini", base_url=server.base_url, api_key="sk-x")

        async def run() -> None:
            await model.request(history, tools=[TOOL], settings=settings)
            async for _ in model.stream(history[:2]):
                pass

        asyncio.run(run())
    plain, streamed = (r.body for r in server.requests)
    assert server.requests[0].headers["authorization"] == "Bearer sk-x"
    assert plain["model"] == "gpt-4.1-mini"
    assert plain["messages"] == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Read a."},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "read_file", "arguments": '{"path": "a"'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "error: not valid JSON"},
    ]
    assert plain["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "read_file",
                "description": "Read a file.",
                "parameters": TOOL.parameters,
            },
        }
    ]
    assert plain["parallel_tool_calls"] is False
    assert plain["max_completion_tokens"] == 300 and plain["temperature"] == 0.2
    assert "stream" not in plain
    assert streamed["stream"] is True and streamed["stream_options"] == {"include_usage": True}
    assert "tools" not in streamed and "parallel_tool_calls" not in streamed
    assert "max_completion_tokens" not in streamed  # no cap unless asked


def test_compatible_servers_get_max_tokens() -> None:
    model = OpenAIChatModel(
        "qwen3", base_url="http://127.0.0.1:1/v1", provider="ollama", max_output_tokens=512
    )
    body = model.payload([ChatMessage.user("x")], [], ModelSettings(), stream=False)
    assert body["max_tokens"] == 512 and "max_completion_tokens" not in body


def test_assistant_text_with_calls_keeps_its_text() -> None:
    (wire,) = wire_messages([ChatMessage.assistant("Checking.", [tool_call("a", call_id="1")])])
    assert wire["content"] == "Checking."


def chunk(
    delta: dict[str, Any] | None = None, finish: str | None = None, **extra: Any
) -> dict[str, Any]:
    choices = [] if delta is None else [{"index": 0, "delta": delta, "finish_reason": finish}]
    return {"model": "m", "choices": choices, **extra}


def test_assembler_handles_server_quirks() -> None:
    def call(index: int, **fields: Any) -> dict[str, Any]:
        return chunk({"tool_calls": [{"index": index, **fields}]})

    assembler = StreamAssembler(provider="local")
    events: list[Any] = []
    for c in [
        chunk({"role": "assistant", "content": None}),
        chunk({"content": [{"type": "text", "text": "Hi"}]}),  # content parts
        # arguments as an object rather than its JSON text
        call(0, id="call_a", function={"name": "a", "arguments": {"x": 1}}),
        # a second call reusing index 0 with a new id (seen with some proxies)
        call(0, id="call_b", function={"name": "b", "arguments": ""}),
        call(0, function={"arguments": "{}"}),
        # a server that sends no id at all
        call(1, function={"name": "c", "arguments": "{}"}),
        chunk({}, "stop"),  # Ollama: "stop" next to tool calls
        chunk(
            None, usage={"prompt_tokens": 50, "completion_tokens": 5, "prompt_cache_hit_tokens": 30}
        ),
    ]:
        events += assembler.feed(c)
    response = assembler.finish(complete=False)  # a finish reason is enough without [DONE]
    assert [e.text for e in events if isinstance(e, TextDelta)] == ["Hi"]
    assert [e.index for e in events if isinstance(e, ToolCallDelta)] == [0, 1, 1, 2]
    first, second, third = response.message.tool_calls
    assert first.id == "call_a" and first.name == "a" and first.parsed() == {"x": 1}
    assert second.id == "call_b" and second.name == "b" and second.arguments == "{}"
    assert third.id.startswith("call_2_") and third.name == "c"
    assert response.finish_reason == "tool_calls"
    assert response.usage == Usage(input_tokens=50, output_tokens=5, cache_read_tokens=30)


def test_assembler_detects_a_cut_stream() -> None:
    assembler = StreamAssembler(provider="local")
    assembler.feed(chunk({"content": "partial"}))
    with pytest.raises(ModelError) as caught:
        assembler.finish(complete=False)
    assert caught.value.kind == "truncated"
    assert assembler.finish(complete=True).finish_reason == "stop"


def test_parse_completion_shapes() -> None:
    data = {
        "model": "gpt-4o",
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": "c",
                            "type": "function",
                            "function": {"name": "t", "arguments": "{}"},
                        }
                    ],
                },
                "finish_reason": "tool_calls",
            }
        ],
        "usage": {
            "prompt_tokens": 10,
            "completion_tokens": 2,
            "prompt_tokens_details": {"cached_tokens": 4},
        },
    }
    response = parse_completion(data, provider="openai")
    assert response.message.content == "" and response.message.tool_calls[0].name == "t"
    assert response.usage == Usage(10, 2, 4, 0) and response.model == "gpt-4o"
    filtered = {"choices": [{"message": {"content": "x"}, "finish_reason": "content_filter"}]}
    assert parse_completion(filtered, provider="o").finish_reason == "content_filter"
    odd = {"choices": [{"message": {"content": "x"}, "finish_reason": "eos"}]}
    assert parse_completion(odd, provider="o").finish_reason == "other"
    assert parse_completion({"choices": []}, provider="o").message.content == ""  # empty
    with pytest.raises(ModelError, match=r"JSON but not a chat\.completion") as shape:
        parse_completion({"choices": "none"}, provider="o")
    assert shape.value.kind == "bad_response"
    with pytest.raises(ModelError) as caught:
        parse_completion({"error": {"message": "prompt is too long"}}, provider="o")
    assert caught.value.kind == "context_overflow"
