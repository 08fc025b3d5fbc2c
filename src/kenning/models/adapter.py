"""What every HTTP chat adapter shares: identity, retries, request and stream.

An adapter says how to build its wire body (``payload``), how to read a
complete answer (``parse``) and how to turn one streamed HTTP response into
events (``stream_once``); this base wraps them in the same timeout and retry
policy, so the two providers cannot drift apart on either. A stream is
retried only before its first event reaches the consumer
(``stream_with_retries``).

An answer with neither text nor tool calls is refused here, for both
providers and both modes, as ``ModelError("empty_response")``: it is a
failed model call (retried once), never a final answer to archive — unless
the caller says silence is an answer (``ModelSettings.allow_empty``).
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator, Sequence
from contextlib import aclosing
from typing import Any

from kenning.models.errors import ModelError
from kenning.models.http import Endpoint
from kenning.models.retry import RetryPolicy, call_with_retries, stream_with_retries
from kenning.models.types import (
    ChatMessage,
    ModelResponse,
    ModelSettings,
    ResponseDone,
    StreamEvent,
    ToolSpec,
)

_EMPTY_BECAUSE = {
    "length": "it stopped at its output limit (finish reason 'length') before writing any "
    "text; a reasoning model may have spent it all thinking, so raise model.max_output_tokens",
    "content_filter": "the provider's content filter withheld it (finish reason 'content_filter')",
}


def require_answer(response: ModelResponse, provider: str) -> ModelResponse:
    """``response`` if it says something (text or a tool call), else the error it is."""
    message = response.message
    if message.tool_calls or message.content.strip():
        return response
    why = _EMPTY_BECAUSE.get(response.finish_reason, "no text and no tool calls")
    raise ModelError(
        "empty_response",
        f"{provider}: the model returned an empty response ({why})",
        provider=provider,
    )


class HttpChatModel:
    # Set by each adapter's __init__.
    model: str
    provider: str
    base_url: str
    timeout_s: float
    retry: RetryPolicy
    endpoint: Endpoint
    _name: str
    _context_window: int

    @property
    def name(self) -> str:
        return self._name

    @property
    def context_window(self) -> int:
        return self._context_window

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._name!r}, base_url={self.base_url!r})"

    def payload(
        self,
        messages: Sequence[ChatMessage],
        tools: Sequence[ToolSpec],
        settings: ModelSettings,
        *,
        stream: bool,
    ) -> dict[str, Any]:
        raise NotImplementedError

    def parse(self, data: Any) -> ModelResponse:
        """A complete (non-streamed) answer from its decoded JSON."""
        raise NotImplementedError

    def stream_once(
        self, body: dict[str, Any], timeout_s: float
    ) -> AsyncGenerator[StreamEvent, None]:
        """One streamed HTTP request as events, ending with ``ResponseDone``."""
        raise NotImplementedError

    async def request(
        self,
        messages: Sequence[ChatMessage],
        *,
        tools: Sequence[ToolSpec] = (),
        settings: ModelSettings | None = None,
    ) -> ModelResponse:
        settings = settings or ModelSettings()
        body = self.payload(messages, tools, settings, stream=False)
        timeout = settings.timeout_s or self.timeout_s

        async def once() -> ModelResponse:
            response = self.parse(await self.endpoint.post_json(body, timeout_s=timeout))
            return response if settings.allow_empty else require_answer(response, self.provider)

        return await call_with_retries(once, self.retry)

    async def stream(
        self,
        messages: Sequence[ChatMessage],
        *,
        tools: Sequence[ToolSpec] = (),
        settings: ModelSettings | None = None,
    ) -> AsyncIterator[StreamEvent]:
        settings = settings or ModelSettings()
        body = self.payload(messages, tools, settings, stream=True)
        timeout = settings.timeout_s or self.timeout_s
        once = self.stream_once if settings.allow_empty else self._answered
        async for event in stream_with_retries(lambda: once(body, timeout), self.retry):
            yield event

    async def _answered(
        self, body: dict[str, Any], timeout_s: float
    ) -> AsyncGenerator[StreamEvent, None]:
        """``stream_once``, refusing an empty answer (it sent no text, so it can be retried)."""
        async with aclosing(self.stream_once(body, timeout_s)) as events:
            async for event in events:
                if isinstance(event, ResponseDone):
                    require_answer(event.response, self.provider)
                yield event
