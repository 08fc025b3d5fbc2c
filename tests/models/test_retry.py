"""The retry policy: what is retried, how long it waits, and when it stops."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from typing import Any

import pytest

from kenning.models import ModelError
from kenning.models.retry import RetryPolicy, call_with_retries, stream_with_retries


def err(kind: Any, retry_after: float | None = None) -> ModelError:
    return ModelError(kind, f"{kind} happened", retry_after=retry_after, provider="p")


@pytest.mark.parametrize("kind", ["auth", "bad_request", "not_found", "context_overflow"])
def test_permanent_errors_are_never_retried(kind: Any) -> None:
    assert RetryPolicy().delay(err(kind), 0, 0.0) is None


def test_backoff_doubles_with_equal_jitter_and_is_capped() -> None:
    low = RetryPolicy(base_delay_s=1.0, max_delay_s=5.0, random=lambda: 0.0)
    high = RetryPolicy(base_delay_s=1.0, max_delay_s=5.0, random=lambda: 1.0)
    assert [low.delay(err("server"), n, 0.0) for n in range(4)] == [0.5, 1.0, 2.0, 2.5]
    assert [high.delay(err("server"), n, 0.0) for n in range(4)] == [1.0, 2.0, 4.0, 5.0]


def test_retry_after_is_used_exactly_up_to_its_cap() -> None:
    policy = RetryPolicy(max_retry_after_s=10.0)
    assert policy.delay(err("rate_limit", retry_after=3.5), 0, 0.0) == 3.5
    assert policy.delay(err("rate_limit", retry_after=0.0), 0, 0.0) == 0.0
    assert policy.delay(err("rate_limit", retry_after=11.0), 0, 0.0) is None


def test_max_retries_and_total_wait_bound_the_effort() -> None:
    policy = RetryPolicy(max_retries=2, max_total_wait_s=5.0)
    assert policy.delay(err("timeout", retry_after=1.0), 2, 0.0) is None
    assert policy.delay(err("timeout", retry_after=1.0), 1, 4.5) is None
    assert policy.delay(err("timeout", retry_after=1.0), 1, 3.9) == 1.0
    assert RetryPolicy(max_retries=0).delay(err("server"), 0, 0.0) is None


def test_call_retries_then_succeeds_and_reports_each_retry() -> None:
    seen: list[tuple[str, int, float]] = []
    waits: list[float] = []

    async def sleep(s: float) -> None:
        waits.append(s)

    failures = [err("server", retry_after=0.1), err("rate_limit", retry_after=0.2)]

    async def call() -> str:
        if failures:
            raise failures.pop(0)
        return "done"

    policy = RetryPolicy(sleep=sleep, on_retry=lambda e, n, w: seen.append((e.kind, n, w)))
    assert asyncio.run(call_with_retries(call, policy)) == "done"
    assert waits == [0.1, 0.2]
    assert seen == [("server", 1, 0.1), ("rate_limit", 2, 0.2)]


def test_call_gives_up_with_a_note() -> None:
    async def sleep(s: float) -> None:
        pass

    async def call() -> str:
        raise err("connection")

    with pytest.raises(ModelError) as caught:
        asyncio.run(call_with_retries(call, RetryPolicy(max_retries=1, sleep=sleep)))
    assert caught.value.kind == "connection"
    assert str(caught.value) == "connection happened (gave up after 2 attempts)"


def test_time_spent_in_slow_requests_counts_toward_the_total_wait() -> None:
    # The policy is kenning.retry's, shared with the remote embedder: elapsed
    # time is read from its (injectable) monotonic clock, not only summed waits.
    now = [0.0]
    tries: list[float] = []

    async def sleep(s: float) -> None:
        now[0] += s

    async def call() -> str:
        tries.append(now[0])
        now[0] += 50.0  # each request takes fifty seconds to fail
        raise err("timeout")

    policy = RetryPolicy(max_total_wait_s=120.0, random=lambda: 0.0, monotonic=lambda: now[0])
    with pytest.raises(ModelError, match="gave up after 3 attempts"):
        asyncio.run(call_with_retries(call, policy))
    assert len(tries) == 3  # 0 s, 50.5 s, 101.5 s: a fourth would start past 120 s


def test_a_permanent_error_surfaces_unchanged() -> None:
    original = err("auth")

    async def call() -> str:
        raise original

    with pytest.raises(ModelError) as caught:
        asyncio.run(call_with_retries(call, RetryPolicy()))
    assert caught.value is original


def _stream(script: list[Any]) -> Any:
    """open_stream() that yields items and raises the ModelErrors in order, per attempt."""
    attempts = iter(script)

    async def open_stream() -> AsyncGenerator[str, None]:
        for item in next(attempts):
            if isinstance(item, ModelError):
                raise item
            yield item

    return open_stream


def test_stream_retried_only_before_delivery() -> None:
    async def sleep(s: float) -> None:
        pass

    policy = RetryPolicy(sleep=sleep)

    async def run(script: list[Any]) -> tuple[list[str], ModelError | None]:
        got: list[str] = []
        try:
            async for item in stream_with_retries(_stream(script), policy):
                got.append(item)
        except ModelError as exc:
            return got, exc
        return got, None

    # fails before anything was delivered: re-opened, the consumer sees one clean stream
    assert asyncio.run(run([[err("server")], ["a", "b"]])) == (["a", "b"], None)
    # fails after "a" was delivered: surfaces, never re-opened
    got, error = asyncio.run(run([["a", err("server")], ["x"]]))
    assert got == ["a"] and error is not None and error.kind == "server"


def test_abandoned_stream_is_closed() -> None:
    closed: list[bool] = []

    async def open_stream() -> AsyncGenerator[int, None]:
        try:
            for i in range(10):
                yield i
        finally:
            closed.append(True)

    async def take_one() -> int:
        stream = stream_with_retries(open_stream, RetryPolicy())
        first = await anext(stream)
        await stream.aclose()
        return first

    assert asyncio.run(take_one()) == 0
    assert closed == [True]
