"""Fixtures for model tests: both wire formats, instant retries, event collection."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import pytest

from kenning.models import AnthropicModel, ModelError, OpenAIChatModel, StreamEvent
from kenning.models.retry import RetryPolicy
from kenning.testing.wire import AnthropicServer, OpenAIServer, ScriptItem, WireServer


@dataclass
class Sleeps:
    """A fake ``asyncio.sleep`` that records the waits and returns at once."""

    waits: list[float] = field(default_factory=list)

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


@pytest.fixture
def sleeps() -> Sleeps:
    return Sleeps()


@pytest.fixture
def policy(sleeps: Sleeps) -> Callable[..., RetryPolicy]:
    def make(max_retries: int = 2, **kwargs: Any) -> RetryPolicy:
        return RetryPolicy(max_retries=max_retries, sleep=sleeps, **kwargs)

    return make


@dataclass(frozen=True)
class Wire:
    """One wire format: its server and an adapter pointed at a running server."""

    name: str
    server_cls: type[WireServer]

    def server(self, script: Iterable[ScriptItem] = (), **kwargs: Any) -> WireServer:
        return self.server_cls(script, **kwargs)

    def model(self, server: WireServer, **kwargs: Any) -> OpenAIChatModel | AnthropicModel:
        kwargs.setdefault("api_key", "test-key")
        if self.name == "openai":
            return OpenAIChatModel("gpt-test", base_url=server.base_url, **kwargs)
        return AnthropicModel("claude-test", base_url=server.base_url, **kwargs)


WIRES = {"openai": Wire("openai", OpenAIServer), "anthropic": Wire("anthropic", AnthropicServer)}


@pytest.fixture(params=sorted(WIRES))
def wire(request: pytest.FixtureRequest) -> Wire:
    return WIRES[request.param]


async def _collect(
    stream: AsyncIterator[StreamEvent],
) -> tuple[list[StreamEvent], ModelError | None]:
    events: list[StreamEvent] = []
    try:
        async for event in stream:
            events.append(event)
    except ModelError as exc:
        return events, exc
    return events, None


@pytest.fixture
def collect() -> Callable[..., Any]:
    """``events, error = await collect(model.stream(...))``."""
    return _collect
