"""One retry policy for Kenning's HTTP calls: model adapters and remote embedders.

What is retried: HTTP 429, 408 and 5xx answers and failures to connect or to
get an answer in time; any other 4xx is the request's fault and surfaces at
once (the model adapters refine this per error kind, in
:mod:`kenning.models.retry`, on top of this policy).

How long it waits (:class:`Backoff`):
- a server's ``Retry-After`` is honoured exactly, up to ``max_retry_after_s``;
  asking for longer means "not now", and the error surfaces with the figure;
- otherwise exponential backoff with "equal jitter" (at least half the step,
  from an injectable random source), so clients that failed together do not
  retry together;
- at most ``max_retries`` retries and never more than ``max_total_wait_s``
  spent in all, measured as the larger of the waits asked for and the
  ``time.monotonic`` time since the first attempt (injectable, like the sleep
  each caller passes in, so tests neither wait nor depend on the machine).

:class:`Attempts` is one call's count of tries: it lives in the call, never
on a shared object, so concurrent calls cannot see each other's retries.
"""

from __future__ import annotations

import email.utils
import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from kenning import clock

__all__ = ["Attempts", "Backoff", "gave_up_note", "parse_retry_after", "transient_status"]

# A retry-after longer than a day is a parsing accident, not advice.
_MAX_SANE_RETRY_AFTER = 86_400.0


def transient_status(status: int) -> bool:
    """True for answers that waiting can fix: 429, 408 and every 5xx."""
    return status in (408, 429) or status >= 500


def parse_retry_after(headers: Mapping[str, str], *, now: float | None = None) -> float | None:
    """Seconds to wait as the server asked, or None when it did not say.

    Accepts ``retry-after-ms`` (OpenAI), ``retry-after`` as seconds (fractions
    allowed) or as an HTTP date. Negative or absurd values are ignored.
    """
    lowered = {k.lower(): v for k, v in headers.items()}
    raw_ms = lowered.get("retry-after-ms")
    if raw_ms:
        try:
            value = float(raw_ms) / 1000.0
        except ValueError:
            value = -1.0
        if 0 <= value <= _MAX_SANE_RETRY_AFTER:
            return value
    raw = (lowered.get("retry-after") or "").strip()
    if not raw:
        return None
    try:
        value = float(raw)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(raw)
        except (TypeError, ValueError, IndexError):
            return None
        value = when.timestamp() - (clock.system_timestamp() if now is None else now)
        value = max(0.0, value)  # a date in the past means "now"
    if not 0 <= value <= _MAX_SANE_RETRY_AFTER:
        return None
    return value


@dataclass(frozen=True)
class Backoff:
    """How many retries, and how long each waits (see the module docstring)."""

    max_retries: int = 4
    base_delay_s: float = 1.0
    max_delay_s: float = 20.0
    # A server asking for a longer pause than this is treated as "not now":
    # the error surfaces with the server's figure rather than stalling the caller.
    max_retry_after_s: float = 60.0
    max_total_wait_s: float = 120.0
    random: Callable[[], float] = field(default=random.random, compare=False, repr=False)
    monotonic: Callable[[], float] = field(default=time.monotonic, compare=False, repr=False)

    def wait(
        self, attempt: int, retry_after: float | None, spent: float, *, limit: int | None = None
    ) -> float | None:
        """Seconds to wait after failed attempt ``attempt`` (0-based), or None to give up.

        ``spent`` is the time already spent on the call; ``limit`` lowers
        ``max_retries`` for one kind of failure.
        """
        retries = self.max_retries if limit is None else min(limit, self.max_retries)
        if attempt >= retries:
            return None
        if retry_after is not None:
            if retry_after > self.max_retry_after_s:
                return None
            wait = retry_after
        else:
            step = min(self.max_delay_s, self.base_delay_s * 2**attempt)
            wait = step / 2 + self.random() * step / 2
        if spent + wait > self.max_total_wait_s:
            return None
        return wait

    def attempts(self) -> Attempts:
        """A fresh count for one call (starts the ``monotonic`` clock)."""
        return Attempts(self, self.monotonic())


@dataclass
class Attempts:
    """One call's tries under a :class:`Backoff`; create one per call."""

    backoff: Backoff
    started: float
    made: int = 1  # the first attempt is under way when the count is created
    waited: float = 0.0

    def spent(self) -> float:
        return max(self.waited, self.backoff.monotonic() - self.started)

    def next_wait(self, retry_after: float | None, *, limit: int | None = None) -> float | None:
        """After a transient failure: seconds to wait before the next try, or None."""
        wait = self.backoff.wait(self.made - 1, retry_after, self.spent(), limit=limit)
        if wait is not None:
            self.made += 1
            self.waited += wait
        return wait


def gave_up_note(backoff: Backoff, attempts: int, retry_after: float | None) -> str:
    """Why retrying stopped, for the error a person reads ("" when nothing to add)."""
    notes: list[str] = []
    if attempts > 1:
        notes.append(f"gave up after {attempts} attempts")
    if retry_after is not None and retry_after > backoff.max_retry_after_s:
        notes.append(
            f"the server asked to wait {retry_after:.0f} s, longer than the "
            f"{backoff.max_retry_after_s:.0f} s Kenning waits; try again later"
        )
    return "; ".join(notes)
