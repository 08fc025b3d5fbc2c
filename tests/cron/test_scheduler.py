"""Cron: schedules, due jobs run once, missed runs run once, one daemon per home."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import textwrap
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from kenning.config import CronConfig
from kenning.cron.schedule import ScheduleError, parse
from kenning.cron.scheduler import Job, JobRun, JobStore, Scheduler
from kenning.home import Home
from kenning.locks import Busy, locks_dir, try_lock
from kenning.testing.models import ScriptedModel

from .conftest import cron_home, git_log

T0 = datetime(2026, 11, 30, 10, 0, 0)


class Clock:
    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


def _home(tmp_path: Path, **cron: str) -> Home:
    settings = {"dream_schedule": "", "curator_schedule": "", **cron}
    return cron_home(tmp_path / "home", cron=CronConfig(**settings))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "after", "expected"),
    [
        ("every 2h", T0, T0 + timedelta(hours=2)),
        ("every 30m", T0, T0 + timedelta(minutes=30)),
        ("daily 03:00", T0, datetime(2026, 12, 1, 3, 0)),
        ("weekly sun 04:00", T0, datetime(2026, 12, 6, 4, 0)),
        ("0 9 * * mon-fri", T0, datetime(2026, 12, 1, 9, 0)),
        ("hourly", T0, T0 + timedelta(hours=1)),
    ],
)
def test_schedule_forms(text: str, after: datetime, expected: datetime) -> None:
    assert parse(text).next_after(after) == expected


@pytest.mark.parametrize("text", ["", "sometimes", "daily 25:00", "weekly xyz 04:00", "* * * * x"])
def test_bad_schedules_say_which_forms_exist(text: str) -> None:
    with pytest.raises(ScheduleError):
        parse(text)


def test_due_jobs_run_once_as_archived_cron_sessions(tmp_path: Path) -> None:
    home = _home(tmp_path)
    out = tmp_path / "news.md"
    JobStore(home).add(
        Job(
            "news",
            "every 1h",
            task="Summarise the news.",
            output=str(out),
            created_at=T0.isoformat(),
        )
    )
    assert git_log(home)[0] == "cron: add job 'news' (every 1h)"
    clock = Clock(T0 + timedelta(minutes=30))
    model = ScriptedModel(["Headlines: calm.", "Headlines: stormy."])
    scheduler = Scheduler(home, clock=clock, model=model)

    assert asyncio.run(scheduler.tick()) == []
    clock.now = T0 + timedelta(minutes=61)
    runs = asyncio.run(scheduler.tick())
    assert [(r.name, r.ok, r.summary) for r in runs] == [("news", True, "Headlines: calm.")]
    assert asyncio.run(scheduler.tick()) == []  # the same moment: not again
    clock.now = T0 + timedelta(minutes=122)
    assert len(asyncio.run(scheduler.tick())) == 1
    model.assert_complete()

    session = home.archive.session(runs[0].session_id or "")
    assert session is not None and session.source == "cron" and session.end_reason == "cron final"
    assert home.archive.messages(session.id)[-1].content == "Headlines: calm."
    # memory is loaded in the job's prompt, and the job was told nobody is watching
    prompt = model.calls[0].messages
    assert "MEMORY" in prompt[0].content and "Nobody is watching" in prompt[1].content
    assert "read-only" in prompt[1].content
    text = out.read_text()
    assert text.count("· cron news") == 2 and "Headlines: stormy." in text


def test_a_missed_run_runs_once_at_the_next_start(tmp_path: Path) -> None:
    home = _home(tmp_path)
    store = JobStore(home)
    store.add(
        Job("report", "daily 03:00", task="Write the report.", created_at="2026-11-01T00:00:00")
    )
    store.record(JobRun("report", (T0 - timedelta(days=3)).isoformat(), True, "ok"))
    clock = Clock(T0)  # three nights were missed
    scheduler = Scheduler(home, clock=clock, model=ScriptedModel(["done", "done again"]))
    assert [r.name for r in asyncio.run(scheduler.tick())] == ["report"]
    assert asyncio.run(scheduler.tick()) == []
    clock.now = datetime(2026, 12, 1, 3, 1)
    assert [r.name for r in asyncio.run(scheduler.tick())] == ["report"]


def test_builtin_dream_and_curator_run_on_their_schedule(tmp_path: Path) -> None:
    home = _home(tmp_path, dream_schedule="daily 03:00", curator_schedule="weekly sun 04:00")
    clock = Clock(T0)
    scheduler = Scheduler(home, clock=clock, started=T0)
    assert asyncio.run(scheduler.tick()) == []  # a new home waits for the night
    clock.now = datetime(2026, 12, 1, 3, 5)
    runs = asyncio.run(scheduler.tick())
    assert [r.name for r in runs] == ["dream"] and runs[0].summary.startswith("dream: 0 promoted")
    assert (home.root / "DREAMS.md").is_file()
    clock.now = datetime(2026, 12, 6, 4, 5)
    assert [r.name for r in asyncio.run(scheduler.tick())] == ["dream", "curator"]


def test_two_daemons_cannot_run_on_one_home(tmp_path: Path) -> None:
    home = _home(tmp_path)
    lock = locks_dir(home.root) / "daemon.lock"
    # This process is the first daemon; a real second process is turned away.
    with try_lock(lock):
        env = {**os.environ, "KENNING_HOME": str(home.root), "KENNING_EMBEDDING__PROVIDER": "none"}
        second = subprocess.run(
            [sys.executable, "-m", "kenning", "daemon", "--once"],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert second.returncode == 1
    assert f"another daemon (pid {os.getpid()}) already runs this home" in second.stderr
    # And the other way round: a real process holds the lock, this one is refused.
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            textwrap.dedent(
                f"""
                import sys
                from pathlib import Path
                from kenning.locks import try_lock
                with try_lock(Path({str(lock)!r})):
                    print("locked", flush=True)
                    sys.stdin.readline()
                """
            ),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        with pytest.raises(Busy) as refused:
            asyncio.run(Scheduler(home).serve(once=True))
        assert refused.value.holder == holder.pid
    finally:
        assert holder.stdin is not None
        holder.stdin.close()
        holder.wait(timeout=30)
        holder.stdout.close()
    asyncio.run(Scheduler(home).serve(once=True))  # free again once it exited
