"""Schedules: when a job is next due, from a short human form or a cron expression.

Forms (local time):

- ``every 30m`` / ``every 2h`` / ``every 1d`` — an interval after the last run;
- ``hourly`` — at minute 0; ``daily 03:00``; ``weekly sun 04:00``;
- any five-field cron expression (``0 9 * * mon-fri``), evaluated by
  ``cronsim`` (typed, no dependencies, DST-aware; the evaluator used by
  healthchecks.io), rather than a home-made parser.

A schedule answers one question, ``next_after(moment)``: the first time
strictly after ``moment`` when the job is due. The scheduler asks it with the
job's last run, so a run that was missed while no daemon ran is due once —
not once per missed slot.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta

from cronsim import CronSim, CronSimError

_EVERY = re.compile(r"^every\s+(\d+)\s*(m|min|minutes?|h|hours?|d|days?)$")
_DAILY = re.compile(r"^daily\s+(\d{1,2}):(\d{2})$")
_WEEKLY = re.compile(r"^weekly\s+([a-z]{3})[a-z]*\s+(\d{1,2}):(\d{2})$")
_DAYS = ("sun", "mon", "tue", "wed", "thu", "fri", "sat")
MIN_INTERVAL = timedelta(minutes=1)

FORMS_HELP = (
    "use 'every 30m', 'every 2h', 'every 1d', 'hourly', 'daily 03:00', 'weekly sun 04:00', "
    "or a cron expression such as '0 9 * * mon-fri'"
)


class ScheduleError(ValueError):
    """A schedule that cannot be understood; the message lists the forms."""


@dataclass(frozen=True)
class Schedule:
    text: str  # as the user wrote it
    cron: str | None = None  # a five-field expression, or None for an interval
    interval: timedelta | None = None

    def next_after(self, moment: datetime) -> datetime:
        """The first due time strictly after ``moment`` (naive local time)."""
        if self.interval is not None:
            return moment + self.interval
        assert self.cron is not None
        return next(CronSim(self.cron, moment.replace(microsecond=0)))

    def describe(self) -> str:
        return self.text


def parse(text: str) -> Schedule:
    """A Schedule from ``text``, or ScheduleError saying which forms exist."""
    raw = " ".join(text.strip().lower().split())
    if not raw:
        raise ScheduleError(f"the schedule is empty; {FORMS_HELP}")
    if match := _EVERY.match(raw):
        amount, unit = int(match.group(1)), match.group(2)[0]
        interval = {"m": timedelta(minutes=amount), "h": timedelta(hours=amount)}.get(
            unit, timedelta(days=amount)
        )
        if interval < MIN_INTERVAL:
            raise ScheduleError("an interval must be at least one minute")
        return Schedule(raw, interval=interval)
    if raw == "hourly":
        return Schedule(raw, cron="0 * * * *")
    if match := _DAILY.match(raw):
        hour, minute = _clock(match.group(1), match.group(2), raw)
        return Schedule(raw, cron=f"{minute} {hour} * * *")
    if match := _WEEKLY.match(raw):
        day = match.group(1)
        if day not in _DAYS:
            raise ScheduleError(f"{day!r} is not a day; use one of {', '.join(_DAYS)}")
        hour, minute = _clock(match.group(2), match.group(3), raw)
        return Schedule(raw, cron=f"{minute} {hour} * * {_DAYS.index(day)}")
    fields = raw.split()
    if len(fields) == 5:
        try:
            next(CronSim(raw, datetime(2000, 1, 1)))
        except (CronSimError, StopIteration) as exc:
            raise ScheduleError(f"{text!r} is not a valid cron expression ({exc})") from None
        return Schedule(raw, cron=raw)
    raise ScheduleError(f"cannot read the schedule {text!r}; {FORMS_HELP}")


def _clock(hour: str, minute: str, raw: str) -> tuple[int, int]:
    h, m = int(hour), int(minute)
    if h > 23 or m > 59:
        raise ScheduleError(f"{raw!r}: the time must be between 00:00 and 23:59")
    return h, m
