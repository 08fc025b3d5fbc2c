"""One clock: every part of Kenning that stamps time agrees with a frozen clock."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from kenning import clock
from kenning.clock import FrozenClock, OffsetClock
from kenning.home import Home
from kenning.memory.store import Target
from kenning.testing import frozen_clock


def test_a_frozen_clock_is_seen_by_the_archive_journal_git_and_snapshot(home: Home) -> None:
    when = datetime(2031, 6, 15, 12, 30, tzinfo=UTC)
    with frozen_clock(when) as stopped:
        sid = home.archive.start_session("cli")
        home.journal.append("A note written on the frozen day.")
        home.memory.add(Target.MEMORY, "A fact written on the frozen day.")
        snapshot = home.snapshot()
        stopped.advance(days=3)
        later = home.archive.start_session("cli")

    first, second = home.archive.session(sid), home.archive.session(later)
    assert first is not None and second is not None
    assert first.started_at == when.timestamp()
    assert second.started_at == (when + timedelta(days=3)).timestamp()
    assert sid.startswith("20310615-123000-")
    local_day = when.astimezone().date().isoformat()
    assert home.journal.path_for(when.astimezone().date()).name == f"{local_day}.md"
    assert home.journal.path_for(when.astimezone().date()).exists()
    assert snapshot.taken_at == when
    dates = subprocess.run(
        ["git", "log", "--format=%at"], cwd=home.root, capture_output=True, text=True, check=True
    ).stdout.split()
    assert dates and set(dates) == {str(int(when.timestamp()))}


def test_frozen_clock_moves_only_when_told() -> None:
    stopped = FrozenClock("2030-01-01T00:00:00Z")
    with clock.use(stopped):
        first = clock.now()
        assert clock.now() == first
        stopped.advance(hours=25)
        assert clock.now() - first == timedelta(hours=25)
        stopped.set("2029-12-31T23:00:00+00:00")
        assert clock.timestamp() == datetime(2029, 12, 31, 23, tzinfo=UTC).timestamp()
    assert clock.now().year >= 2025  # restored to the system clock


def test_readings_agree_on_one_instant() -> None:
    with frozen_clock("2030-03-04T05:06:07Z"):
        assert clock.now().tzinfo is UTC
        assert clock.timestamp() == clock.now().timestamp()
        assert clock.local() == clock.now().astimezone().replace(tzinfo=None)
        assert clock.today() == clock.local().date()
        assert clock.git_date() == f"@{int(clock.timestamp())} +0000"


def test_offset_clock_starts_at_its_instant_and_runs_on() -> None:
    start = datetime(2040, 2, 29, 8, 0, tzinfo=UTC)
    running = OffsetClock(start)
    first = running.now()
    assert abs((first - start).total_seconds()) < 5
    assert running.now() >= first


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2030-01-02T03:04:05Z", datetime(2030, 1, 2, 3, 4, 5, tzinfo=UTC)),
        ("2030-01-02T03:04:05+00:00", datetime(2030, 1, 2, 3, 4, 5, tzinfo=UTC)),
        ("2030-01-02T04:04:05+01:00", datetime(2030, 1, 2, 3, 4, 5, tzinfo=UTC)),
    ],
)
def test_parse_accepts_iso_instants(text: str, expected: datetime) -> None:
    assert clock.parse(text) == expected


def test_parse_without_offset_means_local_time() -> None:
    assert clock.parse("2030-01-02T03:04:05") == datetime(2030, 1, 2, 3, 4, 5).astimezone()


def test_parse_refuses_garbage_with_the_expected_form() -> None:
    with pytest.raises(ValueError, match="ISO-8601"):
        clock.parse("next tuesday")


def _kenning(home: Path, *args: str, now: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "KENNING_HOME": str(home), "KENNING_NOW": now, "TZ": "UTC"}
    return subprocess.run(
        [sys.executable, "-m", "kenning", *args], capture_output=True, text=True, env=env
    )


def test_kenning_now_sets_a_subprocess_clock(tmp_path: Path) -> None:
    home = tmp_path / "home"
    done = _kenning(home, "journal", "add", "Written in 2031.", now="2031-01-02T03:04:05Z")
    assert done.returncode == 0, done.stderr
    assert (home / "memory" / "2031-01-02.md").exists()


def test_an_invalid_kenning_now_is_a_usage_error_not_a_traceback(tmp_path: Path) -> None:
    done = _kenning(tmp_path / "home", "home", "path", now="yesterday-ish")
    assert done.returncode == 2
    assert "KENNING_NOW" in done.stderr and "ISO-8601" in done.stderr
    assert "Traceback" not in done.stderr
