"""Adapter for Anthropic's Messages API (``POST {base_url}/v1/messages``).

Translation rules, all confined here:

- system messages become the top-level ``system`` field (joined in order);
- assistant tool calls become ``tool_use`` blocks; tool results become
  ``tool_result`` blocks in a user turn, and consecutive same-role turns are
  merged, so a batch of results is one user message as the API expects;
- with ``prompt_cache`` on (the default) the system prompt and the newest
  message carry ``cache_control`` breakpoints: Kenning's system prompt is
  frozen per session, so every turn after the first reads it from cache.

Invariants: ``Usage.input_tokens`` is the whole prompt (uncached + cache read
+ cache write), with the cached parts also reported separately; tool-call
arguments are the JSON text of ``input`` (streamed ``input_json_delta``
fragments joined verbatim); the last streamed event is always
``ResponseDone``; retries follow the adapter's ``RetryPolicy`` and never
happen once an event has been delivered.
"""

from __future__ import annotations

import json
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
    ToolArgumentsError,
    ToolCall,
    ToolCallDelta,
    ToolSpec,
    Usage,
)

ANTHROPIC_BASE_URL = "https://api.anthropic.com"
ANTHROPIC_VERSION = "2023-06-01"

_STOP: dict[str, FinishReason] = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "tool_use": "tool_calls",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "refusal": "content_filter",
}

_EPHEMERAL = {"type": "ephemeral"}


def messages_url(base_url: str) -> str:
    """``https://api.anthropic.com`` and ``…/v1`` both lead to ``…/v1/messages``."""
    base = base_url.rstrip("/")
    return f"{base}/messages" if base.endswith("/v1") else f"{base}/v1/messages"


class AnthropicModel(HttpChatModel):
    """A Claude model (or anything speaking the Messages API)."""

    def __init__(
        self,
        model: str,
        *,
        base_url: str = ANTHROPIC_BASE_URL,
        api_key: str | None = None,
        name: str | None = None,
        provider: str = "anthropic",
        context_window: int = 200_000,
        max_output_tokens: int = 8192,
        timeout_s: float = 120.0,
        retry: RetryPolicy | None = None,
        key_env: str | None = None,
        version: str = ANTHROPIC_VERSION,
        headers: Mapping[str, str] | None = None,
        client: httpx.AsyncClient | None = None,
        prompt_cache: bool = True,
    ) -> None:
        self.model = model
        self.base_url = base_url.rstrip("/")
        self.provider = provider
        self._name = name or f"{provider}:{model}"
        self._context_window = context_window
        self.max_output_tokens = max_output_tokens  # the API requires a cap
        self.timeout_s = timeout_s
        self.retry = retry or RetryPolicy()
        self.prompt_cache = prompt_cache
        wire_headers = {
            "Content-Type": "application/json",
            "anthropic-version": version,
            **(headers or {}),
        }
        if api_key:
            wire_headers["x-api-key"] = api_key
        self.endpoint = Endpoint(
            url=messages_url(base_url),
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
        """The JSON body for one request (public so tests can inspect it)."""
        system, turns = wire_conversation(messages)
        body: dict[str, Any] = {
            "model": self.model,
            "max_tokens": settings.max_output_tokens or self.max_output_tokens,
            "messages": turns,
        }
        if system:
            block: dict[str, Any] = {"type": "text", "text": system}
            if self.prompt_cache:
                block["cache_control"] = dict(_EPHEMERAL)
            body["system"] = [block]
        if self.prompt_cache and turns:
            # The newest block is a breakpoint: the next request re-reads this
            # whole prefix from cache and pays full price only for what is new.
            turns[-1]["content"][-1]["cache_control"] = dict(_EPHEMERAL)
        if tools:
            body["tools"] = [wire_tool(t) for t in tools]
            if not settings.parallel_tool_calls:
                body["tool_choice"] = {"type": "auto", "disable_parallel_tool_use": True}
        if settings.temperature is not None:
            body["temperature"] = settings.temperature
        if stream:
            body["stream"] = True
        return body

    def parse(self, data: Any) -> ModelResponse:
        return parse_message(
            data, provider=self.provider, fallback_model=self.model, advice=self.endpoint.url_advice
        )

    async def stream_once(
        self, body: dict[str, Any], timeout_s: float
    ) -> AsyncGenerator[StreamEvent, None]:
        assembler = StreamAssembler(provider=self.provider, fallback_model=self.model)
        received = Received()
        async for sse in self.endpoint.post_sse(body, timeout_s=timeout_s, received=received):
            for event in assembler.feed(self.endpoint.event_json(sse, received)):
                yield event
        try:
            response = assembler.finish()
        except ModelError as exc:
            problem = "the event stream ended without message_stop"
            raise self.endpoint.cut_short(received, problem) from exc
        yield ResponseDone(response)


def url_advice(base_url: str) -> str:
    """Where the Messages API lives, for "not the API's answer" messages."""
    return f"it is {base_url}; Kenning adds /v1/messages, or /messages after a …/v1"


# --- outbound ----------------------------------------------------------------


def _tool_input(call: ToolCall) -> dict[str, Any]:
    try:
        return call.parsed()
    except ToolArgumentsError:
        # The API only takes an object here. The tool's error result, which
        # follows this call, already tells the model what it sent wrong.
        return {}


def _blocks(message: ChatMessage) -> list[dict[str, Any]]:
    if message.role == "tool":
        block: dict[str, Any] = {"type": "tool_result", "tool_use_id": message.tool_call_id or ""}
        if message.content:
            block["content"] = message.content
        return [block]
    # The API rejects empty text blocks, so an empty text is no block at all.
    blocks: list[dict[str, Any]] = []
    if message.content:
        blocks.append({"type": "text", "text": message.content})
    for call in message.tool_calls:
        blocks.append(
            {"type": "tool_use", "id": call.id, "name": call.name, "input": _tool_input(call)}
        )
    return blocks


def wire_conversation(messages: Sequence[ChatMessage]) -> tuple[str, list[dict[str, Any]]]:
    """(system text, alternating user/assistant turns) for the Messages API."""
    system = "\n\n".join(m.content for m in messages if m.role == "system" and m.content)
    turns: list[dict[str, Any]] = []
    for message in messages:
        if message.role == "system":
            continue
        role = "assistant" if message.role == "assistant" else "user"
        blocks = _blocks(message)
        if not blocks:
            continue
        if turns and turns[-1]["role"] == role:
            # Consecutive tool results (and a user note after them) form one
            # user turn: the API wants every result of a batch together.
            turns[-1]["content"].extend(blocks)
        else:
            turns.append({"role": role, "content": blocks})
    return system, turns


def wire_tool(spec: ToolSpec) -> dict[str, Any]:
    return {"name": spec.name, "description": spec.description, "input_schema": spec.parameters}


# --- inbound -------------------------------------------------------------------


def parse_usage(data: Any, previous: Usage | None = None) -> Usage:
    """Anthropic usage; fields absent from ``data`` keep their ``previous`` value."""
    base = previous or Usage()
    if not isinstance(data, dict):
        return base
    read = data.get("cache_read_input_tokens")
    write = data.get("cache_creation_input_tokens")
    cache_read = base.cache_read_tokens if read is None else int(read)
    cache_write = base.cache_write_tokens if write is None else int(write)
    uncached = data.get("input_tokens")
    if uncached is None:
        input_tokens = base.input_tokens
    else:
        input_tokens = int(uncached) + cache_read + cache_write
    output = data.get("output_tokens")
    return Usage(
        input_tokens=input_tokens,
        output_tokens=base.output_tokens if output is None else int(output),
        cache_read_tokens=cache_read,
        cache_write_tokens=cache_write,
    )


def _finish(raw: Any, has_calls: bool) -> FinishReason:
    if raw is None:
        return "tool_calls" if has_calls else "stop"
    return _STOP.get(str(raw), "other")


def parse_message(
    data: Any, *, provider: str, fallback_model: str = "", advice: str = ""
) -> ModelResponse:
    """A non-streaming ``message`` body as a ``ModelResponse``."""
    try:
        if data.get("type") == "error":
            raise _error_event(data, provider)
        text: list[str] = []
        calls: list[ToolCall] = []
        for block in data["content"]:
            if block.get("type") == "text":
                text.append(str(block.get("text") or ""))
            elif block.get("type") == "tool_use":
                raw = block.get("input")
                # A proxy relaying input it could not parse sends the text itself:
                # keep it verbatim so the model sees exactly what it produced.
                arguments = raw if isinstance(raw, str) else json.dumps(raw or {})
                calls.append(ToolCall(str(block["id"]), str(block["name"]), arguments))
        return ModelResponse(
            message=ChatMessage.assistant("".join(text), calls),
            usage=parse_usage(data.get("usage")),
            finish_reason=_finish(data.get("stop_reason"), bool(calls)),
            model=str(data.get("model") or fallback_model),
        )
    except (KeyError, TypeError, AttributeError) as exc:
        raise shape_error(provider, "Messages API message", data, exc, advice) from exc


def _error_event(data: Mapping[str, Any], provider: str) -> ModelError:
    err = data.get("error") or {}
    if not isinstance(err, dict):
        err = {"message": str(err)}
    detail = ErrorDetail(message=str(err.get("message") or err), type=str(err.get("type") or ""))
    return classify_stream_error(detail, provider=provider)


class StreamAssembler:
    """Folds Messages-API stream events into kenning events and a final response.

    Content blocks are indexed by the API across text and tool use; our
    ``ToolCallDelta.index`` counts tool calls only (0, 1, …), as OpenAI's does.
    """

    def __init__(self, *, provider: str, fallback_model: str = "") -> None:
        self.provider = provider
        self.model = fallback_model
        self.usage = Usage()
        self.stop_reason: Any = None
        self.stopped = False
        self.text: list[str] = []
        self._blocks: dict[int, int] = {}  # API block index -> tool ordinal
        self._calls: list[tuple[str, str, list[str], Any]] = []  # id, name, fragments, input

    def feed(self, event: Mapping[str, Any]) -> list[StreamEvent]:
        kind = event.get("type")
        if kind == "error":
            raise _error_event(event, self.provider)
        if kind == "message_start":
            message = event.get("message") or {}
            self.model = str(message.get("model") or self.model)
            self.usage = parse_usage(message.get("usage"), self.usage)
        elif kind == "content_block_start":
            return self._start(int(event.get("index", 0)), event.get("content_block") or {})
        elif kind == "content_block_delta":
            return self._delta(int(event.get("index", 0)), event.get("delta") or {})
        elif kind == "message_delta":
            delta = event.get("delta") or {}
            if delta.get("stop_reason"):
                self.stop_reason = delta["stop_reason"]
            # message_delta usage is cumulative; it may restate input counts too.
            self.usage = parse_usage(event.get("usage"), self.usage)
        elif kind == "message_stop":
            self.stopped = True
        return []  # ping, content_block_stop and unknown future events

    def _start(self, index: int, block: Mapping[str, Any]) -> list[StreamEvent]:
        if block.get("type") == "tool_use":
            ordinal = len(self._calls)
            self._blocks[index] = ordinal
            call_id, name = str(block.get("id") or ""), str(block.get("name") or "")
            self._calls.append((call_id, name, [], block.get("input")))
            return [ToolCallDelta(index=ordinal, id=call_id, name=name)]
        if block.get("type") == "text" and block.get("text"):
            self.text.append(str(block["text"]))
            return [TextDelta(str(block["text"]))]
        return []

    def _delta(self, index: int, delta: Mapping[str, Any]) -> list[StreamEvent]:
        kind = delta.get("type")
        if kind == "text_delta" and delta.get("text"):
            self.text.append(str(delta["text"]))
            return [TextDelta(str(delta["text"]))]
        if kind == "input_json_delta" and index in self._blocks:
            piece = str(delta.get("partial_json") or "")
            ordinal = self._blocks[index]
            self._calls[ordinal][2].append(piece)
            return [ToolCallDelta(index=ordinal, arguments=piece)] if piece else []
        return []  # thinking, signature and citation deltas are not surfaced

    def finish(self) -> ModelResponse:
        if not self.stopped and self.stop_reason is None:
            raise ModelError(
                "truncated",
                f"{self.provider}: the stream ended before the answer was complete",
                provider=self.provider,
            )
        calls = tuple(
            ToolCall(call_id, name, "".join(parts) or json.dumps(start or {}))
            for call_id, name, parts, start in self._calls
        )
        return ModelResponse(
            message=ChatMessage.assistant("".join(self.text), calls),
            usage=self.usage,
            finish_reason=_finish(self.stop_reason, bool(calls)),
            model=self.model,
        )
