"""Error classification, retry-after parsing and SSE framing."""

from __future__ import annotations

import asyncio
import email.utils
import json

import httpx
import pytest

from kenning.models.http import (
    ErrorDetail,
    classify_status,
    classify_stream_error,
    classify_transport,
    error_detail,
    is_context_overflow,
    iter_sse,
)
from kenning.retry import parse_retry_after
from kenning.testing.wire import OVERFLOW_BODIES

# Real overflow messages, as the servers word them.
OVERFLOW_TEXTS = [
    "This model's maximum context length is 8192 tokens. However, your messages resulted in "
    "8545 tokens. Please reduce the length of the messages.",  # OpenAI
    "Your input exceeds the context window of this model. Please adjust your input and try "
    "again.",  # OpenAI, newer
    "prompt is too long: 213462 tokens > 200000 maximum",  # Anthropic
    "request (4476 tokens) exceeds the available context size (4096 tokens), try increasing it",
    "the request exceeds the available context size, try increasing it",  # llama.cpp
    "Context size has been exceeded.",  # llama.cpp (older), LM Studio MLX
    "Trying to keep the first 10136 tokens when context the overflows. However, the model is "
    "loaded with context length of only 7866 tokens, which is not enough.",  # LM Studio
    "This endpoint's maximum context length is 131072 tokens. However, you requested about "
    "140000 tokens.",  # OpenRouter
    "Please reduce the length of the messages or completion.",  # Groq
    "The input token count (1196265) exceeds the maximum number of tokens allowed (1048575).",
    "This model's maximum prompt length is 131072 but the request contains 537812 tokens.",
    "input exceeds maximum context length",  # Ollama runner
]
NOT_OVERFLOW = [
    "Invalid value for 'temperature': must be between 0 and 2.",
    "max_tokens: Field required",
    "messages: roles must alternate between user and assistant",
    "The model `gpt-9` does not exist or you do not have access to it.",
]


@pytest.mark.parametrize("text", OVERFLOW_TEXTS)
def test_overflow_wording_is_recognised(text: str) -> None:
    assert is_context_overflow(text)


@pytest.mark.parametrize("text", NOT_OVERFLOW)
def test_other_errors_are_not_overflow(text: str) -> None:
    assert not is_context_overflow(text)


@pytest.mark.parametrize("style", sorted(OVERFLOW_BODIES))
def test_overflow_bodies_of_each_server_classify(style: str) -> None:
    error = classify_status(400, json.dumps(OVERFLOW_BODIES[style]), provider="local")
    assert error.kind == "context_overflow", style
    assert "context window" in str(error)


def test_anthropic_overflow_and_request_too_large() -> None:
    body = {
        "type": "error",
        "error": {
            "type": "invalid_request_error",
            "message": "prompt is too long: 210000 tokens > 200000 maximum",
        },
    }
    assert classify_status(400, json.dumps(body), provider="anthropic").kind == "context_overflow"
    too_big = {
        "type": "error",
        "error": {"type": "request_too_large", "message": "Request exceeds the maximum size"},
    }
    assert (
        classify_status(413, json.dumps(too_big), provider="anthropic").kind == "context_overflow"
    )


@pytest.mark.parametrize(
    ("status", "kind"),
    [
        (429, "rate_limit"),
        (500, "server"),
        (502, "server"),
        (503, "server"),
        (529, "server"),
        (408, "timeout"),
        (401, "auth"),
        (403, "auth"),
        (402, "auth"),
        (404, "not_found"),
        (400, "bad_request"),
        (422, "bad_request"),
    ],
)
def test_status_decides_the_kind(status: int, kind: str) -> None:
    error = classify_status(status, '{"error": {"message": "nope"}}', provider="p")
    assert error.kind == kind and error.status == status
    assert str(error).startswith("p: ") and "nope" in str(error) and f"HTTP {status}" in str(error)


def test_rate_limit_carries_retry_after() -> None:
    error = classify_status(429, "{}", {"Retry-After": "7"}, provider="p")
    assert error.retry_after == 7.0 and error.transient


def test_empty_quota_is_not_a_rate_limit() -> None:
    body = {
        "error": {
            "message": "You exceeded your current quota, please check your plan and "
            "billing details.",
            "type": "insufficient_quota",
            "code": "insufficient_quota",
        }
    }
    error = classify_status(429, json.dumps(body), {"retry-after": "1"}, provider="openai")
    assert error.kind == "auth" and not error.transient and "billing" in str(error)


def test_auth_message_names_the_key_variable() -> None:
    error = classify_status(401, "{}", provider="openai", key_env="OPENAI_API_KEY")
    assert "check OPENAI_API_KEY" in str(error)


def test_ollama_missing_model_suggests_pull() -> None:
    body = {
        "error": {"message": 'model "qwen3" not found, try pulling it first', "type": "api_error"}
    }
    error = classify_status(404, json.dumps(body), provider="ollama", model="qwen3")
    assert error.kind == "not_found" and "ollama pull qwen3" in str(error)


def test_error_detail_shapes() -> None:
    openai = error_detail('{"error": {"message": "m", "type": "t", "code": "c"}}')
    assert openai == ErrorDetail("m", "t", "c")
    anthropic = error_detail('{"type": "error", "error": {"type": "api_error", "message": "m"}}')
    assert anthropic == ErrorDetail("m", "api_error", "")
    assert error_detail('{"error": "plain words"}').message == "plain words"
    assert error_detail(b"<html>Bad Gateway</html>").message == "<html>Bad Gateway</html>"
    assert error_detail("").message == "(empty body)"
    assert error_detail("x" * 5000).message.endswith("…")


def test_stream_errors_map_by_type() -> None:
    assert (
        classify_stream_error(ErrorDetail("Overloaded", "overloaded_error"), provider="a").kind
        == "server"
    )
    assert (
        classify_stream_error(ErrorDetail("slow down", "rate_limit_error"), provider="a").kind
        == "rate_limit"
    )
    assert classify_stream_error(ErrorDetail("x", code="502"), provider="o").kind == "server"
    overflow = ErrorDetail("prompt is too long: 1 > 0", "invalid_request_error")
    assert classify_stream_error(overflow, provider="a").kind == "context_overflow"
    assert classify_stream_error(ErrorDetail("mystery"), provider="o").kind == "server"


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"retry-after": "2"}, 2.0),
        ({"Retry-After": "0.5"}, 0.5),
        ({"retry-after": "0"}, 0.0),
        ({"retry-after-ms": "250", "retry-after": "9"}, 0.25),
        ({"retry-after": "soon"}, None),
        ({"retry-after": "-3"}, None),
        ({}, None),
    ],
)
def test_parse_retry_after(headers: dict[str, str], expected: float | None) -> None:
    assert parse_retry_after(headers) == expected


def test_parse_retry_after_http_date() -> None:
    now = 1_700_000_000.0
    later = email.utils.formatdate(now + 30, usegmt=True)
    assert parse_retry_after({"retry-after": later}, now=now) == pytest.approx(30, abs=1)
    earlier = email.utils.formatdate(now - 30, usegmt=True)
    assert parse_retry_after({"retry-after": earlier}, now=now) == 0.0


def test_transport_errors() -> None:
    request = httpx.Request("POST", "http://127.0.0.1:1/v1")
    timeout = classify_transport(httpx.ReadTimeout("slow", request=request), provider="p", url="u")
    assert timeout.kind == "timeout" and timeout.transient
    refused = classify_transport(
        httpx.ConnectError("refused", request=request), provider="p", url="u"
    )
    assert refused.kind == "connection" and "is the server running?" in str(refused)
    bad = classify_transport(httpx.UnsupportedProtocol("ftp"), provider="p", url="ftp://x")
    assert bad.kind == "bad_request" and not bad.transient


def test_sse_framing() -> None:
    raw = (
        b": keep-alive comment\n\n"
        b'event: message_start\ndata: {"a": 1}\n\n'
        b"data: line one\ndata: line two\r\n\r\n"
        b"data:no-space\n\n"
        b"data: [DONE]"  # no final blank line
    )

    async def read() -> list[tuple[str, str]]:
        response = httpx.Response(200, content=raw)
        return [(e.event, e.data) async for e in iter_sse(response)]

    assert asyncio.run(read()) == [
        ("message_start", '{"a": 1}'),
        ("", "line one\nline two"),
        ("", "no-space"),
        ("", "[DONE]"),
    ]


def test_overflow_wording_wins_over_a_500() -> None:
    body = '{"error": "input exceeds maximum context length"}'  # an Ollama runner answering 500
    assert classify_status(500, body, provider="ollama").kind == "context_overflow"
    assert classify_status(500, '{"error": "boom"}', provider="ollama").kind == "server"
