"""Freeze Kenning's clock for a block of code (tests, reproductions).

    with frozen_clock("2026-11-30T03:00:00") as clock:
        home.journal.append("…")        # dated 30 November
        clock.advance(days=2)
        Dreamer(home).run()              # sees 2 December, like the archive does

Every part of Kenning reads time through :mod:`kenning.clock`, so one frozen
clock is coherent across the archive, the journal, dreaming, cron, the curator
and git commit dates.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime

from kenning import clock
from kenning.clock import FrozenClock


@contextmanager
def frozen_clock(start: datetime | str) -> Iterator[FrozenClock]:
    """Install a :class:`FrozenClock` at ``start`` (naive = local time) for the block."""
    with clock.use(FrozenClock(start)) as frozen:
        assert isinstance(frozen, FrozenClock)
        yield frozen
