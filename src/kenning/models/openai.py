"""Adapter for OpenAI-compatible chat-completions endpoints.

One class serves OpenAI, OpenRouter, DeepSeek, Ollama, vLLM, llama.cpp's
server and LM Studio: they differ only in base URL, key and small quirks,
which are absorbed here rather than leaking into the loop:

- tool-call ids some local servers omit are synthesised, so results can be
  matched to calls;
- servers that answer ``finish_reason: "stop"`` next to tool calls (Ollama)
  are read as ``tool_calls``;
- cached prompt tokens come from ``prompt_tokens_details.cached_tokens``
  (OpenAI) or ``prompt_cache_hit_tokens`` (DeepSeek).

Invariants: tool-call arguments travel as the raw text the model produced (a
malformed call is returned to the model verbatim, with the tool's error);
``Usage.input_tokens`` is the whole prompt, cached part included; the last
streamed event is always ``ResponseDone``; transient errors are retried per
the adapter's ``RetryPolicy``, and a stream is never retried once an event
has been delivered.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import AsyncGenerator, Mapping, Sequence
from typing import Any

import httpx

from kenning.models.adapter import HttpChatModel
from kenning.models.answers import Received, shape_error
from kenning.models.errors import ModelError
from kenning.models.http import Endpoint, ErrorDetail, classify_stream_error
from kenning.models.retry import RetryPolicy
from kenning.models.types import (
    ChatMessage,
    FinishReason,
    ModelResponse,
    ModelSettings,
    ResponseDone,
    StreamEvent,
    TextDelta,
    ToolCall,
    ToolCallDelta,
    ToolSpec,
    Usage,
)

OPENAI_BASE_URL = "https://api.openai.com/v1"

_FINISH: dict[str, FinishReason] = {
    "stop": "stop",
    "tool_calls": "tool_calls",
    "function_call": "tool_calls",
    "length": "length",
    "content_filter": "content_filter",
}


class OpenAIChatModel(HttpChatModel):
    """A model behind ``POST {base_url}/chat/completions``."""

    def __init__(
        self,
        model: str,
        *,
        base_url: str = OPENAI_BASE_URL,
        api_key: str | None = None,
        name: str | None = None,
        provider: str = "openai",
        context_window: int = 128_000,
        max_output_tokens: int | None = None,
        max_tokens_field: str | None = None,
        timeout_s: float = 120.0,
        retry: RetryPolicy | None = None,
        key_env: str | None = None,
        headers: Mapping[str, str] | None = None,
        client: httpx.AsyncClient | None = None,
        stream_usage: bool = True,
    ) -> None:
        self.model = model
        self.base_url = base_url.rstrip("/")
        self.provider = provider
        self._name = name or f"{provider}:{model}"
        self._context_window = context_window
        # None: send no cap and let the server decide. Local servers (vLLM)
        # reject a cap that does not fit beside the prompt, so none by default.
        self.max_output_tokens = max_output_tokens
        # OpenAI's reasoning models refuse the older max_tokens; compatible
        # servers do not all know the newer name.
        self.max_tokens_field = max_tokens_field or (
            "max_completion_tokens" if provider == "openai" else "max_tokens"
        )
        self.timeout_s = timeout_s
        self.retry = retry or RetryPolicy()
        self.stream_usage = stream_usage
        # Set by the registry when the server runs the model with a small window.
        self.window_note = ""
        wire_headers = {"Content-Type": "application/json", **(headers or {})}
        if api_key:
            wire_headers["Authorization"] = f"Bearer {api_key}"
        self.endpoint = Endpoint(
            url=f"{self.base_url}/chat/completions",
            headers=wire_headers,
            provider=provider,
            model=model,
            key_env=key_env,
            client=client,
            url_advice=url_advice(self.base_url),
        )

    def payload(
        self,
        messages: Sequence[ChatMessage],
        tools: Sequence[ToolSpec],
        settings: ModelSettings,
        *,
        stream: bool,
    ) -> dict[str, Any]:
        """The JSON body for one request (public so tests and tools can inspect it)."""
        body: dict[str, Any] = {"model": self.model, "messages": wire_messages(messages)}
        if tools:
            body["tools"] = [wire_tool(t) for t in tools]
            # Only said when it differs from the default: some servers reject
            # the field, and OpenAI rejects it without tools.
            if not settings.parallel_tool_calls:
                body["parallel_tool_calls"] = False
        cap = settings.max_output_tokens or self.max_output_tokens
        if cap:
            body[self.max_tokens_field] = cap
        if settings.temperature is not None:
            body["temperature"] = settings.temperature
        if stream:
            body["stream"] = True
            if self.stream_usage:
                body["stream_options"] = {"include_usage": True}
        return body

    def parse(self, data: Any) -> ModelResponse:
        return parse_completion(
            data,
            provider=self.provider,
            fallback_model=self.model,
            advice=self.endpoint.url_advice,
        )

    async def stream_once(
        self, body: dict[str, Any], timeout_s: float
    ) -> AsyncGenerator[StreamEvent, None]:
        assembler = StreamAssembler(provider=self.provider, fallback_model=self.model)
        complete = False
        received = Received()
        async for sse in self.endpoint.post_sse(body, timeout_s=timeout_s, received=received):
            if sse.data.strip() == "[DONE]":
                complete = True  # read on to the end: the server closes the stream
                continue
            chunk = _checked_chunk(self.endpoint.event_json(sse, received), self.provider)
            for event in assembler.feed(chunk):
                yield event
        try:
            response = assembler.finish(complete=complete)
        except ModelError as exc:
            problem = "the event stream ended without a finish reason or [DONE]"
            raise self.endpoint.cut_short(received, problem) from exc
        yield ResponseDone(response)


def url_advice(base_url: str) -> str:
    """Where OpenAI-compatible servers keep the API, for "not the API's answer" messages."""
    return (
        f"it is {base_url}; OpenAI-compatible servers usually serve the API under …/v1, "
        "e.g. http://localhost:11434/v1, and Kenning adds /chat/completions"
    )


# --- outbound: kenning values -> wire JSON ---------------------------------


def wire_messages(messages: Sequence[ChatMessage]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for m in messages:
        if m.role == "tool":
            out.append({"role": "tool", "tool_call_id": m.tool_call_id or "", "content": m.content})
        elif m.role == "assistant" and m.tool_calls:
            out.append(
                {
                    "role": "assistant",
                    # null, not "": some servers' chat templates render "" as a turn
                    "content": m.content or None,
                    "tool_calls": [
                        {
                            "id": c.id,
                            "type": "function",
                            "function": {"name": c.name, "arguments": c.arguments},
                        }
                        for c in m.tool_calls
                    ],
                }
            )
        else:
            out.append({"role": m.role, "content": m.content})
    return out


def wire_tool(spec: ToolSpec) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": spec.name,
            "description": spec.description,
            "parameters": spec.parameters,
        },
    }


# --- inbound: wire JSON -> kenning values ----------------------------------


def parse_usage(data: Any) -> Usage:
    if not isinstance(data, dict):
        return Usage()
    details = data.get("prompt_tokens_details") or {}
    cached = details.get("cached_tokens") if isinstance(details, dict) else None
    if cached is None:
        cached = data.get("prompt_cache_hit_tokens")  # DeepSeek
    return Usage(
        input_tokens=int(data.get("prompt_tokens") or 0),
        output_tokens=int(data.get("completion_tokens") or 0),
        cache_read_tokens=int(cached or 0),
    )


def _finish(raw: Any, has_calls: bool) -> FinishReason:
    reason = _FINISH.get(str(raw), "other") if raw else "stop"
    # Ollama and some llama.cpp builds say "stop" next to tool calls.
    if has_calls and reason == "stop":
        return "tool_calls"
    return reason


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts, as a few compatible servers send
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return ""


def _arguments_text(raw: Any) -> str:
    if isinstance(raw, str):
        return raw
    if raw is None:
        return ""
    return json.dumps(raw)  # some servers send an object rather than its JSON text


def _call_id(raw: Any, index: int) -> str:
    return str(raw) if raw else f"call_{index}_{secrets.token_hex(4)}"


def parse_completion(
    data: Any, *, provider: str, fallback_model: str = "", advice: str = ""
) -> ModelResponse:
    """A non-streaming ``chat.completion`` body as a ``ModelResponse``.

    No choices at all is an empty answer (the adapter refuses it as one),
    exactly as a stream of chunks with empty ``choices`` is.
    """
    try:
        if isinstance(data, dict) and "error" in data and not data.get("choices"):
            raise _stream_error(data["error"], provider)
        choices = data["choices"]
        choice = choices[0] if choices != [] else {"message": {}}
        message = choice.get("message") or {}
        calls = tuple(
            ToolCall(
                id=_call_id(c.get("id"), i),
                name=str((c.get("function") or {}).get("name") or ""),
                arguments=_arguments_text((c.get("function") or {}).get("arguments")),
            )
            for i, c in enumerate(message.get("tool_calls") or ())
        )
        return ModelResponse(
            message=ChatMessage.assistant(_text_of(message.get("content")), calls),
            usage=parse_usage(data.get("usage")),
            finish_reason=_finish(choice.get("finish_reason"), bool(calls)),
            model=str(data.get("model") or fallback_model),
        )
    except (KeyError, IndexError, TypeError, AttributeError) as exc:
        raise shape_error(provider, "chat.completion", data, exc, advice) from exc


def _stream_error(err: Any, provider: str) -> ModelError:
    if isinstance(err, dict):
        code = err.get("code")
        detail = ErrorDetail(
            message=str(err.get("message") or err),
            type=str(err.get("type") or ""),
            code="" if code is None else str(code),
        )
    else:
        detail = ErrorDetail(message=str(err))
    return classify_stream_error(detail, provider=provider)


def _checked_chunk(chunk: dict[str, Any], provider: str) -> dict[str, Any]:
    if "error" in chunk and not chunk.get("choices"):
        # OpenRouter and some proxies report failures inside a 200 stream.
        raise _stream_error(chunk["error"], provider)
    return chunk


class StreamAssembler:
    """Folds ``chat.completion.chunk`` objects into events and a final response.

    Tool-call fragments are keyed by the wire ``index``; our ``ToolCallDelta``
    indexes are 0, 1, 2 … in order of first appearance whatever the server uses.
    """

    def __init__(self, *, provider: str, fallback_model: str = "") -> None:
        self.provider = provider
        self.model = fallback_model
        self.text: list[str] = []
        self.usage = Usage()
        self.finish_reason: Any = None
        self._slots: dict[Any, int] = {}
        self._ids: list[str] = []
        self._names: list[str] = []
        self._args: list[list[str]] = []

    def feed(self, chunk: Mapping[str, Any]) -> list[StreamEvent]:
        events: list[StreamEvent] = []
        if chunk.get("model"):
            self.model = str(chunk["model"])
        if chunk.get("usage"):
            self.usage = parse_usage(chunk["usage"])
        for choice in chunk.get("choices") or ():
            if choice.get("index", 0) != 0:
                continue  # n > 1 is never requested
            delta = choice.get("delta") or {}
            text = _text_of(delta.get("content"))
            if text:
                self.text.append(text)
                events.append(TextDelta(text))
            for position, fragment in enumerate(delta.get("tool_calls") or ()):
                events.append(self._tool_fragment(position, fragment))
            if choice.get("finish_reason"):
                self.finish_reason = choice["finish_reason"]
        return events

    def _tool_fragment(self, position: int, fragment: Mapping[str, Any]) -> ToolCallDelta:
        key = fragment.get("index", position)
        slot = self._slots.get(key)
        new_id = fragment.get("id")
        if slot is not None and new_id and self._ids[slot] and new_id != self._ids[slot]:
            slot = None  # a server reusing an index for a different call
        if slot is None:
            slot = len(self._ids)
            self._slots[key] = slot
            self._ids.append("")
            self._names.append("")
            self._args.append([])
        function = fragment.get("function") or {}
        if new_id and not self._ids[slot]:
            self._ids[slot] = str(new_id)
        name = function.get("name")
        if name and not self._names[slot]:
            self._names[slot] = str(name)
        piece = _arguments_text(function.get("arguments"))
        self._args[slot].append(piece)
        return ToolCallDelta(
            index=slot,
            id=str(new_id) if new_id else None,
            name=str(name) if name else None,
            arguments=piece,
        )

    def finish(self, *, complete: bool = True) -> ModelResponse:
        """The whole response; ``complete`` says the server sent its ``[DONE]``."""
        if self.finish_reason is None and not complete:
            # Neither a finish reason nor [DONE]: the connection was cut short.
            raise ModelError(
                "truncated",
                f"{self.provider}: the stream ended before the answer was complete",
                provider=self.provider,
            )
        calls = tuple(
            ToolCall(id=_call_id(self._ids[i], i), name=self._names[i], arguments="".join(a))
            for i, a in enumerate(self._args)
        )
        return ModelResponse(
            message=ChatMessage.assistant("".join(self.text), calls),
            usage=self.usage,
            finish_reason=_finish(self.finish_reason, bool(calls)),
            model=self.model,
        )
