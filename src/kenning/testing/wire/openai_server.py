"""A local server speaking OpenAI's chat-completions wire format.

``POST /v1/chat/completions`` answers with a ``chat.completion`` object, or,
when the request says ``"stream": true``, with ``chat.completion.chunk``
server-sent events the way OpenAI sends them: a role chunk, text in several
content deltas, each tool call as an id+name delta followed by argument
fragments (parallel calls one after another, by ``index``), a finish chunk,
a usage chunk when ``stream_options.include_usage`` is set, and ``[DONE]``.

Errors use the real bodies: OpenAI's ``{"error": {message, type, param,
code}}``, and for context overflow the wording of OpenAI, llama.cpp, vLLM,
Ollama or LM Studio (``ContextOverflow(style=...)``).

    with OpenAIServer(["Hello!"]) as server:
        model = OpenAIChatModel("gpt-test", base_url=server.base_url)
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Any, ClassVar

from kenning import clock
from kenning.models.types import ModelResponse, Usage
from kenning.testing.models import argument_chunks, text_chunks
from kenning.testing.wire.script import (
    AuthError,
    Behaviour,
    ContextOverflow,
    RateLimited,
    ServerError,
)
from kenning.testing.wire.server import Error, RecordedRequest, WireServer, sse

_FINISH = {
    "stop": "stop",
    "tool_calls": "tool_calls",
    "length": "length",
    "content_filter": "content_filter",
    "other": "stop",
}


def _error(
    message: str, type_: str, code: str | None = None, param: str | None = None
) -> dict[str, Any]:
    return {"error": {"message": message, "type": type_, "param": param, "code": code}}


# What each server really answers when the prompt does not fit (status 400).
OVERFLOW_BODIES: dict[str, dict[str, Any]] = {
    "openai": _error(
        "This model's maximum context length is 128000 tokens. However, your messages "
        "resulted in 131072 tokens. Please reduce the length of the messages.",
        "invalid_request_error",
        "context_length_exceeded",
        "messages",
    ),
    "llamacpp": {
        "error": {
            "code": 400,
            "message": "request (4476 tokens) exceeds the available context size (4096 tokens), "
            "try increasing it",
            "type": "exceed_context_size_error",
            "n_prompt_tokens": 4476,
            "n_ctx": 4096,
        }
    },
    "vllm": {
        "object": "error",
        "message": "This model's maximum context length is 4096 tokens. However, you requested "
        "5000 tokens (4500 in the messages, 500 in the completion). Please reduce the length "
        "of the messages or completion.",
        "type": "BadRequestError",
        "param": None,
        "code": 400,
    },
    "ollama": {
        "error": '{"error":{"code":400,"message":"request (351 tokens) exceeds the available '
        'context size (256 tokens), try increasing it","type":"exceed_context_size_error",'
        '"n_prompt_tokens":351,"n_ctx":256}}'
    },
    "lmstudio": {
        "error": "Trying to keep the first 10136 tokens when context the overflows. However, the "
        "model is loaded with context length of only 7866 tokens, which is not enough. Try to "
        "load the model with a larger context length, or provide a shorter input"
    },
}


def _usage(usage: Usage) -> dict[str, Any]:
    return {
        "prompt_tokens": usage.input_tokens,
        "completion_tokens": usage.output_tokens,
        "total_tokens": usage.input_tokens + usage.output_tokens,
        "prompt_tokens_details": {"cached_tokens": usage.cache_read_tokens},
    }


class OpenAIServer(WireServer):
    route = "/v1/chat/completions"
    provider = "openai"
    # What a server that says nothing of its models answers (``info`` replaces it).
    default_info: ClassVar[Mapping[str, Any]] = {"/v1/models": {"object": "list", "data": []}}

    _ids = itertools.count(1)

    @property
    def base_url(self) -> str:
        return f"{self.origin}/v1"

    def check(self, request: RecordedRequest) -> Error | None:
        if self.api_key is None:
            return None
        if request.headers.get("authorization") == f"Bearer {self.api_key}":
            return None
        return self.error(AuthError())

    def error(self, behaviour: Behaviour) -> Error:
        if isinstance(behaviour, RateLimited):
            headers = (
                {} if behaviour.retry_after is None else {"retry-after": str(behaviour.retry_after)}
            )
            body = _error(
                "Rate limit reached for gpt-test in organization org-test on tokens per min "
                "(TPM): Limit 30000, Used 30000, Requested 1200. Please try again in 2.4s.",
                "tokens",
                "rate_limit_exceeded",
            )
            return 429, body, headers
        if isinstance(behaviour, ServerError):
            message = "The server had an error while processing your request. Sorry about that!"
            return behaviour.status, _error(message, "server_error"), {}
        if isinstance(behaviour, AuthError):
            message = (
                "Incorrect API key provided: sk-wrong. You can find your API key at "
                "https://platform.openai.com/account/api-keys."
            )
            return 401, _error(message, "invalid_request_error", "invalid_api_key"), {}
        if isinstance(behaviour, ContextOverflow):
            return 400, OVERFLOW_BODIES[behaviour.style or "openai"], {}
        raise TypeError(f"no OpenAI rendering for {behaviour!r}")

    def route_not_found(self, request: RecordedRequest) -> Error:
        message = f"Invalid URL ({request.method} {request.path})"
        return 404, _error(message, "invalid_request_error"), {}

    def exhausted(self, request: RecordedRequest) -> Error:
        message = (
            f"kenning wire server: the script has no reply left for request #{len(self.requests)}"
        )
        return 400, _error(message, "invalid_request_error", "script_exhausted"), {}

    def _message(self, response: ModelResponse) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": response.message.content or None}
        if response.message.tool_calls:
            message["tool_calls"] = [
                {
                    "id": c.id,
                    "type": "function",
                    "function": {"name": c.name, "arguments": c.arguments},
                }
                for c in response.message.tool_calls
            ]
        return message

    def render(self, response: ModelResponse, request: RecordedRequest) -> dict[str, Any]:
        return {
            "id": f"chatcmpl-{next(self._ids)}",
            "object": "chat.completion",
            "created": int(clock.timestamp()),
            "model": response.model,
            "choices": [
                {
                    "index": 0,
                    "message": self._message(response),
                    "logprobs": None,
                    "finish_reason": _FINISH[response.finish_reason],
                }
            ],
            "usage": _usage(response.usage),
        }

    def render_stream(self, response: ModelResponse, request: RecordedRequest) -> list[bytes]:
        head = {
            "id": f"chatcmpl-{next(self._ids)}",
            "object": "chat.completion.chunk",
            "created": int(clock.timestamp()),
            "model": response.model,
        }

        def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
            choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
            return sse({**head, "choices": [choice]})

        frames = [chunk({"role": "assistant", "content": ""})]
        frames += [chunk({"content": piece}) for piece in text_chunks(response.message.content)]
        for index, call in enumerate(response.message.tool_calls):
            first = {
                "index": index,
                "id": call.id,
                "type": "function",
                "function": {"name": call.name, "arguments": ""},
            }
            frames.append(chunk({"tool_calls": [first]}))
            for piece in argument_chunks(call.arguments):
                frames.append(
                    chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
                )
        frames.append(chunk({}, _FINISH[response.finish_reason]))
        options = request.body.get("stream_options") if isinstance(request.body, dict) else None
        if isinstance(options, dict) and options.get("include_usage"):
            frames.append(sse({**head, "choices": [], "usage": _usage(response.usage)}))
        frames.append(sse("[DONE]"))
        return frames
