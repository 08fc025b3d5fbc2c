"""Bounded retries for transient model errors, shared by every adapter.

The waits are :class:`kenning.retry.Backoff`'s, the one policy Kenning's HTTP
calls share with the remote embedder; this module adds what is particular
to models.

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

The sleep, the clock and the random source are injectable so tests run in
microseconds and can assert on the waits.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from contextlib import aclosing
from dataclasses import dataclass, field
from typing import NoReturn, TypeVar

from kenning.models.errors import ModelError
from kenning.retry import Attempts, Backoff, gave_up_note

T = TypeVar("T")

Sleep = Callable[[float], Awaitable[None]]
# Called before each wait: (error, retry number starting at 1, seconds to wait).
OnRetry = Callable[[ModelError, int, float], None]


@dataclass(frozen=True)
class RetryPolicy(Backoff):
    max_empty_retries: int = 1
    sleep: Sleep = field(default=asyncio.sleep, compare=False, repr=False)
    on_retry: OnRetry | None = field(default=None, compare=False, repr=False)

    def delay(self, error: ModelError, attempt: int, waited: float) -> float | None:
        """Seconds to wait before retrying after failed attempt ``attempt`` (0-based).

        None means give up. ``waited`` is the time already spent on the call.
        """
        if not error.transient:
            return None
        return self.wait(attempt, error.retry_after, waited, limit=self._limit(error))

    def _limit(self, error: ModelError) -> int | None:
        return self.max_empty_retries if error.kind == "empty_response" else None

    def next_wait(self, error: ModelError, attempts: Attempts) -> float | None:
        """``delay`` for one call's running count (which it advances)."""
        if not error.transient:
            return None
        return attempts.next_wait(error.retry_after, limit=self._limit(error))

    def give_up(self, error: ModelError, attempts: int) -> ModelError:
        """The error to surface, saying how hard we tried when that helps."""
        note = gave_up_note(self, attempts, error.retry_after)
        if not note:
            return error
        return ModelError(
            error.kind,
            f"{error} ({note})",
            status=error.status,
            retry_after=error.retry_after,
            provider=error.provider,
        )


async def call_with_retries(call: Callable[[], Awaitable[T]], policy: RetryPolicy) -> T:
    """Run ``call`` until it succeeds or the policy gives up."""
    attempts = policy.attempts()
    while True:
        try:
            return await call()
        except ModelError as error:
            wait = policy.next_wait(error, attempts)
            if wait is None:
                _surface(policy, error, attempts.made)
            failure = error
        await _pause(policy, failure, attempts.made - 1, wait)


async def stream_with_retries(
    open_stream: Callable[[], AsyncGenerator[T, None]], policy: RetryPolicy
) -> AsyncIterator[T]:
    """Events of ``open_stream()``, re-opened on a transient error before any event left."""
    attempts = policy.attempts()
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
            wait = None if delivered else policy.next_wait(error, attempts)
            if wait is None:
                _surface(policy, error, attempts.made)
            failure = error
        await _pause(policy, failure, attempts.made - 1, wait)


def _surface(policy: RetryPolicy, error: ModelError, attempts: int) -> NoReturn:
    final = policy.give_up(error, attempts)
    if final is error:
        raise error
    raise final from error


async def _pause(policy: RetryPolicy, error: ModelError, retry: int, wait: float) -> None:
    if policy.on_retry is not None:
        policy.on_retry(error, retry, wait)
    await policy.sleep(wait)
