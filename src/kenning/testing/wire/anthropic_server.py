"""A local server speaking Anthropic's Messages API wire format.

``POST /v1/messages`` answers with a ``message`` object, or, when the request
says ``"stream": true``, with the named server-sent events Anthropic sends:
``message_start`` (with input usage), per content block ``content_block_start``
/ ``content_block_delta`` (``text_delta`` pieces, or ``input_json_delta``
fragments of a tool's input) / ``content_block_stop``, a ``ping``,
``message_delta`` (stop reason and output usage) and ``message_stop``.

Requests must carry ``anthropic-version`` (the real API answers 400 without
it) and, when the server has an ``api_key``, a matching ``x-api-key``. Errors
use the real ``{"type": "error", "error": {type, message}}`` bodies.

Malformed tool arguments: streamed, the fragments are sent verbatim (as the
API can with fine-grained tool streaming); in a non-streamed answer, where
the API only ever sends an object, ``input`` carries the raw string instead.

    with AnthropicServer(["Hello!"]) as server:
        model = AnthropicModel("claude-test", base_url=server.base_url)
"""

from __future__ import annotations

import itertools
from typing import Any

from kenning.models.types import ModelResponse, ToolArgumentsError, ToolCall
from kenning.testing.models import argument_chunks, text_chunks
from kenning.testing.wire.script import (
    AuthError,
    Behaviour,
    ContextOverflow,
    RateLimited,
    ServerError,
)
from kenning.testing.wire.server import Error, RecordedRequest, WireServer, sse

_STOP = {
    "stop": "end_turn",
    "tool_calls": "tool_use",
    "length": "max_tokens",
    "content_filter": "refusal",
    "other": "end_turn",
}


def _error(type_: str, message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": type_, "message": message}, "request_id": "req_test"}


def _input(call: ToolCall) -> Any:
    try:
        return call.parsed()
    except ToolArgumentsError:
        return call.arguments


class AnthropicServer(WireServer):
    route = "/v1/messages"
    provider = "anthropic"

    _ids = itertools.count(1)

    def check(self, request: RecordedRequest) -> Error | None:
        if self.api_key is not None and request.headers.get("x-api-key") != self.api_key:
            return self.error(AuthError())
        if "anthropic-version" not in request.headers:
            return 400, _error("invalid_request_error", "anthropic-version: header is required"), {}
        return None

    def error(self, behaviour: Behaviour) -> Error:
        if isinstance(behaviour, RateLimited):
            headers = (
                {} if behaviour.retry_after is None else {"retry-after": str(behaviour.retry_after)}
            )
            message = (
                "This request would exceed the rate limit for your organization of 50,000 input "
                "tokens per minute. Please reduce the prompt length or the maximum tokens "
                "requested, or try again later."
            )
            return 429, _error("rate_limit_error", message), headers
        if isinstance(behaviour, ServerError):
            if behaviour.status == 529:
                return 529, _error("overloaded_error", "Overloaded"), {}
            return behaviour.status, _error("api_error", "Internal server error"), {}
        if isinstance(behaviour, AuthError):
            return 401, _error("authentication_error", "invalid x-api-key"), {}
        if isinstance(behaviour, ContextOverflow):
            message = "prompt is too long: 208310 tokens > 200000 maximum"
            return 400, _error("invalid_request_error", message), {}
        raise TypeError(f"no Anthropic rendering for {behaviour!r}")

    def route_not_found(self, request: RecordedRequest) -> Error:
        return 404, _error("not_found_error", f"Not found: {request.method} {request.path}"), {}

    def exhausted(self, request: RecordedRequest) -> Error:
        message = (
            f"kenning wire server: the script has no reply left for request #{len(self.requests)}"
        )
        return 400, _error("invalid_request_error", message), {}

    def _usage(self, response: ModelResponse) -> dict[str, int]:
        usage = response.usage
        cached = usage.cache_read_tokens + usage.cache_write_tokens
        return {
            # The API's input_tokens excludes cached tokens; Usage's includes them.
            "input_tokens": max(0, usage.input_tokens - cached),
            "cache_creation_input_tokens": usage.cache_write_tokens,
            "cache_read_input_tokens": usage.cache_read_tokens,
            "output_tokens": usage.output_tokens,
        }

    def render(self, response: ModelResponse, request: RecordedRequest) -> dict[str, Any]:
        content: list[dict[str, Any]] = []
        if response.message.content:
            content.append({"type": "text", "text": response.message.content})
        for call in response.message.tool_calls:
            content.append(
                {"type": "tool_use", "id": call.id, "name": call.name, "input": _input(call)}
            )
        return {
            "id": f"msg_{next(self._ids):024d}",
            "type": "message",
            "role": "assistant",
            "model": response.model,
            "content": content,
            "stop_reason": _STOP[response.finish_reason],
            "stop_sequence": None,
            "usage": self._usage(response),
        }

    def render_stream(self, response: ModelResponse, request: RecordedRequest) -> list[bytes]:
        usage = self._usage(response)
        start_usage = {**usage, "output_tokens": 1}
        message: dict[str, Any] = {
            "id": f"msg_{next(self._ids):024d}",
            "type": "message",
            "role": "assistant",
            "model": response.model,
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": start_usage,
        }
        frames = [sse({"type": "message_start", "message": message}, "message_start")]
        index = 0

        def event(kind: str, **fields: Any) -> bytes:
            return sse({"type": kind, **fields}, kind)

        if response.message.content:
            frames.append(
                event("content_block_start", index=0, content_block={"type": "text", "text": ""})
            )
            frames.append(event("ping"))
            for piece in text_chunks(response.message.content):
                delta = {"type": "text_delta", "text": piece}
                frames.append(event("content_block_delta", index=0, delta=delta))
            frames.append(event("content_block_stop", index=0))
            index = 1
        for call in response.message.tool_calls:
            block = {"type": "tool_use", "id": call.id, "name": call.name, "input": {}}
            frames.append(event("content_block_start", index=index, content_block=block))
            # The real API opens every tool input with an empty fragment.
            pieces = ["", *argument_chunks(call.arguments)]
            for piece in pieces:
                delta = {"type": "input_json_delta", "partial_json": piece}
                frames.append(event("content_block_delta", index=index, delta=delta))
            frames.append(event("content_block_stop", index=index))
            index += 1
        stop: dict[str, Any] = {"stop_reason": _STOP[response.finish_reason], "stop_sequence": None}
        frames.append(
            event("message_delta", delta=stop, usage={"output_tokens": usage["output_tokens"]})
        )
        frames.append(event("message_stop"))
        return frames
