"""What every HTTP chat adapter shares: identity, retries, request and stream.

An adapter says how to build its wire body (``payload``), how to read a
complete answer (``parse``) and how to turn one streamed HTTP response into
events (``stream_once``); this base wraps them in the same timeout and retry
policy, so the two providers cannot drift apart on either. A stream is
retried only before its first event reaches the consumer
(``stream_with_retries``).
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator, Sequence
from typing import Any

from kenning.models.http import Endpoint
from kenning.models.retry import RetryPolicy, call_with_retries, stream_with_retries
from kenning.models.types import ChatMessage, ModelResponse, ModelSettings, StreamEvent, ToolSpec


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
            return self.parse(await self.endpoint.post_json(body, timeout_s=timeout))

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
        async for event in stream_with_retries(lambda: self.stream_once(body, timeout), self.retry):
            yield event
