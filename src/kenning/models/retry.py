"""Bounded retries for transient model errors, shared by every adapter.

Invariants:
- only transient kinds (rate_limit, server, timeout, connection, truncated,
  empty_response) are retried; auth, bad_request, not_found, bad_response and
  context_overflow surface at once;
- an empty response is retried at most ``max_empty_retries`` times (once):
  one empty answer is often a provider hiccup, two are the model's answer;
- at most ``max_retries`` retries, each wait at most ``max_delay_s`` (backoff)
  or ``max_retry_after_s`` (when the server names a wait), and never more than
  ``max_total_wait_s`` in all — a turn is never stuck behind a long quota reset;
- a stream is retried only before its first event reached the consumer:
  once text is on someone's screen a silent re-request would duplicate it.

The sleep and the random source are injectable so tests run in microseconds
and can assert on the waits.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from contextlib import aclosing
from dataclasses import dataclass, field
from typing import NoReturn, TypeVar

from kenning.models.errors import ModelError

T = TypeVar("T")

Sleep = Callable[[float], Awaitable[None]]
# Called before each wait: (error, retry number starting at 1, seconds to wait).
OnRetry = Callable[[ModelError, int, float], None]


@dataclass(frozen=True)
class RetryPolicy:
    max_retries: int = 4
    base_delay_s: float = 1.0
    max_delay_s: float = 20.0
    # A server asking for a longer pause than this is treated as "not now":
    # the error surfaces with the server's figure rather than stalling the turn.
    max_retry_after_s: float = 60.0
    max_total_wait_s: float = 120.0
    max_empty_retries: int = 1
    sleep: Sleep = field(default=asyncio.sleep, compare=False, repr=False)
    random: Callable[[], float] = field(default=random.random, compare=False, repr=False)
    on_retry: OnRetry | None = field(default=None, compare=False, repr=False)

    def delay(self, error: ModelError, attempt: int, waited: float) -> float | None:
        """Seconds to wait before retrying after failed attempt ``attempt`` (0-based).

        None means give up. ``waited`` is the time already spent waiting.
        """
        limit = self.max_retries
        if error.kind == "empty_response":
            limit = min(limit, self.max_empty_retries)
        if not error.transient or attempt >= limit:
            return None
        if error.retry_after is not None:
            if error.retry_after > self.max_retry_after_s:
                return None
            wait = error.retry_after
        else:
            # Exponential backoff with "equal jitter": at least half the step,
            # so clients that failed together do not retry together.
            step = min(self.max_delay_s, self.base_delay_s * 2**attempt)
            wait = step / 2 + self.random() * step / 2
        if waited + wait > self.max_total_wait_s:
            return None
        return wait

    def give_up(self, error: ModelError, attempts: int) -> ModelError:
        """The error to surface, saying how hard we tried when that helps."""
        notes: list[str] = []
        if attempts > 1:
            notes.append(f"gave up after {attempts} attempts")
        if error.retry_after is not None and error.retry_after > self.max_retry_after_s:
            notes.append(
                f"the server asked to wait {error.retry_after:.0f} s, longer than the "
                f"{self.max_retry_after_s:.0f} s Kenning waits; try again later"
            )
        if not notes:
            return error
        return ModelError(
            error.kind,
            f"{error} ({'; '.join(notes)})",
            status=error.status,
            retry_after=error.retry_after,
            provider=error.provider,
        )


async def call_with_retries(call: Callable[[], Awaitable[T]], policy: RetryPolicy) -> T:
    """Run ``call`` until it succeeds or the policy gives up."""
    attempt = 0
    waited = 0.0
    while True:
        try:
            return await call()
        except ModelError as error:
            wait = policy.delay(error, attempt, waited)
            if wait is None:
                _surface(policy, error, attempt + 1)
            failure = error
        attempt, waited = attempt + 1, waited + wait
        await _pause(policy, failure, attempt, wait)


async def stream_with_retries(
    open_stream: Callable[[], AsyncGenerator[T, None]], policy: RetryPolicy
) -> AsyncIterator[T]:
    """Events of ``open_stream()``, re-opened on a transient error before any event left."""
    attempt = 0
    waited = 0.0
    while True:
        delivered = False
        try:
            # aclosing: an abandoned stream closes its HTTP response now, not at GC.
            async with aclosing(open_stream()) as events:
                async for event in events:
                    delivered = True
                    yield event
            return
        except ModelError as error:
            wait = None if delivered else policy.delay(error, attempt, waited)
            if wait is None:
                _surface(policy, error, attempt + 1)
            failure = error
        attempt, waited = attempt + 1, waited + wait
        await _pause(policy, failure, attempt, wait)


def _surface(policy: RetryPolicy, error: ModelError, attempts: int) -> NoReturn:
    final = policy.give_up(error, attempts)
    if final is error:
        raise error
    raise final from error


async def _pause(policy: RetryPolicy, error: ModelError, retry: int, wait: float) -> None:
    if policy.on_retry is not None:
        policy.on_retry(error, retry, wait)
    await policy.sleep(wait)
