"""One clock for everything that stamps or compares wall time.

The archive's message times, journal days, dreaming's look-back window, the
curator's staleness, cron's schedule, review stamps, skill usage and git
commit dates all read the time from here, never from ``time.time()`` or
``datetime.now()`` directly (a test in ``tests/test_quality.py`` enforces it).
That is what lets a test freeze time *coherently*: when the journal thinks it
is 30 November, so does the archive, so dreaming's "two days back" means the
same thing to both. Durations and timeouts are not wall time and use
``time.monotonic()`` as usual.

Three ways to set it:

- ``clock.use(FrozenClock(...))`` in a ``with`` block (tests; ``kenning.testing``
  has fixtures built on it);
- ``clock.install(c)`` for a whole process;
- ``KENNING_NOW=2027-03-01T09:00:00+00:00`` in the environment: the process
  starts at that instant and time runs on from there — for reproducing a
  report or a bug "as of" a date, and for subprocesses of a frozen test.

Invariants: ``now()`` is timezone-aware UTC; ``local()`` is the same instant
as naive local time (journal day files and cron schedules are in the user's
time zone); ``timestamp()`` is ``now().timestamp()``.
"""

from __future__ import annotations

import os
import threading
import time as _time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, date, datetime, timedelta
from typing import Protocol

ENV_VAR = "KENNING_NOW"


class Clock(Protocol):
    def now(self) -> datetime:
        """The current instant, timezone-aware."""
        ...


class SystemClock:
    """The machine's wall clock."""

    def now(self) -> datetime:
        return datetime.now(UTC)

    def __repr__(self) -> str:
        return "SystemClock()"


class OffsetClock:
    """Starts at ``start`` and runs on in real time (what ``KENNING_NOW`` sets)."""

    def __init__(self, start: datetime) -> None:
        self._offset = _aware(start) - datetime.now(UTC)

    def now(self) -> datetime:
        return datetime.now(UTC) + self._offset


class FrozenClock:
    """Stands still until told to move: ``advance(days=1)``, ``set(when)``.

    Thread-safe, so a test can move time while a background worker reads it.
    """

    def __init__(self, start: datetime | str) -> None:
        self._lock = threading.Lock()
        self._now = _aware(parse(start) if isinstance(start, str) else start)

    def now(self) -> datetime:
        with self._lock:
            return self._now

    def set(self, when: datetime | str) -> None:
        with self._lock:
            self._now = _aware(parse(when) if isinstance(when, str) else when)

    def advance(self, delta: timedelta | None = None, **parts: float) -> datetime:
        with self._lock:
            self._now += delta if delta is not None else timedelta(**parts)
            return self._now

    def __repr__(self) -> str:
        return f"FrozenClock({self._now.isoformat()})"


def parse(text: str) -> datetime:
    """An ISO-8601 instant; ``Z`` means UTC, no offset means local time."""
    raw = text.strip()
    if raw.endswith(("Z", "z")):
        raw = raw[:-1] + "+00:00"
    try:
        return _aware(datetime.fromisoformat(raw))
    except ValueError:
        raise ValueError(
            f"{text!r} is not an ISO-8601 time; write it like 2027-03-01T09:00:00+00:00"
        ) from None


def _aware(when: datetime) -> datetime:
    """A naive datetime is local time (Python's own convention for ``astimezone``)."""
    return when.astimezone() if when.tzinfo is None else when


def _from_environment() -> Clock:
    value = os.environ.get(ENV_VAR, "").strip()
    if not value:
        return SystemClock()
    try:
        return OffsetClock(parse(value))
    except ValueError as exc:
        raise ValueError(f"{ENV_VAR}: {exc}, or unset it") from None


# Chosen on first use, so an invalid KENNING_NOW is reported where the CLI can
# say so cleanly instead of failing the import of every module.
_active: Clock | None = None


def current() -> Clock:
    global _active
    if _active is None:
        _active = _from_environment()
    return _active


def install(clock: Clock) -> Clock:
    """Make ``clock`` the process's clock; returns the one it replaces."""
    global _active
    previous, _active = current(), clock
    return previous


@contextmanager
def use(clock: Clock) -> Iterator[Clock]:
    previous = install(clock)
    try:
        yield clock
    finally:
        install(previous)


# -- readings ---------------------------------------------------------------


def now() -> datetime:
    """The current instant, aware, in UTC."""
    return current().now().astimezone(UTC)


def timestamp() -> float:
    """Seconds since the epoch (what the archive stores)."""
    return now().timestamp()


def local() -> datetime:
    """The current instant as naive local time (journal days, cron schedules)."""
    return now().astimezone().replace(tzinfo=None)


def today() -> date:
    """Today's local date."""
    return local().date()


def system_timestamp() -> float:
    """The machine's own clock, never frozen or offset: only for comparing with
    file modification times, which the filesystem stamps from it."""
    return _time.time()


def git_date() -> str:
    """``now()`` in the form git's ``GIT_*_DATE`` variables take."""
    return f"@{int(timestamp())} +0000"
