"""Cron jobs and the daemon that runs them, with nightly dreaming and the weekly curator.

Jobs live in the home, ``cron/jobs.json`` (versioned: adding or removing a job
is a commit); when each last ran lives in ``cache/cron-state.json`` (not
versioned: it changes on every run). Invariants:

- one scheduler per home: ``kenning daemon`` holds ``cache/locks/daemon.lock``
  (an flock, released by the kernel if the daemon dies); a second one is
  turned away naming the first one's pid;
- a job is due when its schedule's next time after its last run (or after
  its creation) has come; running it records the run *now*, so a daemon that
  was down for a week runs a missed job once, not seven times;
- one run of a job at a time (``cache/locks/cron-<name>.lock``), so
  ``kenning cron run`` and the daemon cannot overlap on the same job;
- an agent job is an agent session of source ``cron``: memory and skills are
  loaded in its prompt, memory and skills are read-only to it (nobody is
  watching), its searches are not recorded as recalls (dreaming learns only
  from people), and it is never reviewed. Its answer is archived with the
  session and, with ``--output``, appended to a file;
- built-in jobs: ``dream`` (``cron.dream_schedule``, nightly), ``curator``
  (``cron.curator_schedule``, weekly) and ``sync`` (``sync.schedule``, off by
  default: ``kenning sync`` with the home's remote); "" turns one off.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Any

from kenning import clock
from kenning.cron.schedule import Schedule, parse
from kenning.fsutil import atomic_write
from kenning.home import Home
from kenning.locks import Busy, exclusive_lock, lock_path_for, locks_dir, try_lock
from kenning.models.types import Model

log = logging.getLogger(__name__)

JOBS_FILE = Path("cron") / "jobs.json"
STATE_FILE = Path("cache") / "cron-state.json"
BUILTINS = ("dream", "curator", "sync")
_NAME = re.compile(r"^[a-z0-9][a-z0-9._-]{0,63}$")


class CronError(ValueError):
    """A refused cron request; the message says what to do."""


@dataclass(frozen=True)
class Job:
    name: str
    schedule: str
    task: str = ""  # empty for built-ins
    model: str = ""
    output: str = ""  # a file the answer is appended to
    cwd: str = ""
    created_at: str = ""
    builtin: bool = False
    # A goal job (``cron add --goal``): TASK is a goal, worked on in turns until
    # ``check`` passes or it is declared done; each run continues the unfinished one.
    goal: bool = False
    check: str = ""
    max_turns: int = 0  # turns per run; 0 = agent.goal_max_turns

    def parsed(self) -> Schedule:
        return parse(self.schedule)


@dataclass(frozen=True)
class JobRun:
    name: str
    started_at: str
    ok: bool
    summary: str  # the answer's first line, or what happened
    session_id: str | None = None
    seconds: float = 0.0


def _iso(moment: datetime) -> str:
    return moment.isoformat(timespec="seconds")


def _parse_time(text: str) -> datetime | None:
    try:
        return datetime.fromisoformat(text) if text else None
    except ValueError:
        return None


class JobStore:
    """``cron/jobs.json`` and ``cache/cron-state.json`` of one home."""

    def __init__(self, home: Home) -> None:
        self.home = home
        self.path = home.root / JOBS_FILE
        self.state_path = home.root / STATE_FILE

    def user_jobs(self) -> list[Job]:
        try:
            raw = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return []
        except ValueError as exc:
            raise CronError(f"{self.path} does not parse ({exc}); fix or remove it") from exc
        jobs = []
        for item in raw.get("jobs", []) if isinstance(raw, dict) else []:
            if isinstance(item, dict) and isinstance(item.get("name"), str):
                known = {k: v for k, v in item.items() if k in Job.__dataclass_fields__}
                jobs.append(Job(**{**known, "builtin": False}))
        return jobs

    def builtin_jobs(self) -> list[Job]:
        cfg = self.home.config.cron
        found = []
        builtins = (
            ("dream", cfg.dream_schedule),
            ("curator", cfg.curator_schedule),
            ("sync", self.home.config.sync.schedule),
        )
        for name, schedule in builtins:
            if schedule.strip():
                found.append(Job(name, schedule, builtin=True))
        return found

    def jobs(self) -> list[Job]:
        return self.builtin_jobs() + self.user_jobs()

    def get(self, name: str) -> Job:
        for job in self.jobs():
            if job.name == name:
                return job
        known = ", ".join(j.name for j in self.jobs()) or "none yet"
        raise CronError(f"no job named {name!r} (jobs: {known}); `kenning cron list` shows them")

    def add(self, job: Job) -> Job:
        if not _NAME.match(job.name):
            raise CronError(
                f"invalid job name {job.name!r}: use lowercase letters, digits, '.', '_', '-'"
            )
        if job.name in BUILTINS:
            raise CronError(f"{job.name!r} is a built-in job; choose another name")
        job.parsed()  # ScheduleError says what is wrong
        if not job.task.strip():
            raise CronError("the task is empty: say what the agent should do")
        with exclusive_lock(self.path.with_name(".jobs.lock")):
            jobs = self.user_jobs()
            if any(j.name == job.name for j in jobs):
                raise CronError(f"a job named {job.name!r} exists; remove it first or pick a name")
            self._save([*jobs, job], f"cron: add job '{job.name}' ({job.schedule})")
        return job

    def remove(self, name: str) -> Job:
        if name in BUILTINS:
            key = "sync.schedule" if name == "sync" else f"cron.{name}_schedule"
            raise CronError(
                f"{name!r} is built in; turn it off with `--set {key}=` or in config.toml"
            )
        with exclusive_lock(self.path.with_name(".jobs.lock")):
            jobs = self.user_jobs()
            found = [j for j in jobs if j.name == name]
            if not found:
                raise CronError(f"no job named {name!r}; `kenning cron list` shows them")
            self._save([j for j in jobs if j.name != name], f"cron: remove job '{name}'")
        return found[0]

    def _save(self, jobs: list[Job], message: str) -> None:
        # Defaults are left out (a job written before goal jobs existed reads the same).
        rows = [
            {k: v for k, v in asdict(j).items() if k != "builtin" and v not in ("", False)}
            for j in jobs
        ]
        text = json.dumps({"format": 1, "jobs": rows}, indent=2, ensure_ascii=False)
        atomic_write(self.path, text + "\n")
        self.home.history.record([self.path], message)

    # -- run state --------------------------------------------------------------------------

    def state(self) -> dict[str, dict[str, Any]]:
        try:
            raw = json.loads(self.state_path.read_text(encoding="utf-8"))
        except (FileNotFoundError, ValueError):
            return {}
        return (
            {k: v for k, v in raw.items() if isinstance(v, dict)} if isinstance(raw, dict) else {}
        )

    def last_run(self, name: str) -> datetime | None:
        return _parse_time(str(self.state().get(name, {}).get("last_run", "")))

    def record(self, run: JobRun) -> None:
        with exclusive_lock(self.state_path.with_name(".cron-state.lock")):
            state = self.state()
            state[run.name] = {"last_run": run.started_at, **asdict(run)}
            atomic_write(self.state_path, json.dumps(state, indent=2, ensure_ascii=False) + "\n")


class Scheduler:
    """Decides what is due and runs it. ``clock`` is local wall time; ``model`` is for tests."""

    def __init__(
        self,
        home: Home,
        *,
        clock: Callable[[], datetime] = clock.local,
        model: Model | None = None,
        started: datetime | None = None,
    ) -> None:
        self.home = home
        self.store = JobStore(home)
        self.clock = clock
        self.model = model
        # Built-ins that never ran count from the daemon's first start, so a new
        # home dreams at the next scheduled night, not at once.
        self.started = started or clock()

    def next_due(self, job: Job) -> datetime:
        base = self.store.last_run(job.name) or _parse_time(job.created_at) or self.started
        return job.parsed().next_after(base)

    def due(self, now: datetime | None = None) -> list[Job]:
        moment = now or self.clock()
        return [job for job in self.store.jobs() if self.next_due(job) <= moment]

    async def tick(self) -> list[JobRun]:
        """Run every job due now, one after another; returns what ran."""
        runs = []
        for job in self.due():
            try:
                runs.append(await self.run_job(job))
            except Busy:
                log.info("job %s is already running elsewhere; skipped", job.name)
        return runs

    async def run_job(self, job: Job) -> JobRun:
        """Run ``job`` now (Busy if another process runs it) and record the run."""
        started = self.clock()
        with try_lock(locks_dir(self.home.root) / f"cron-{job.name}.lock"):
            clock = asyncio.get_running_loop().time
            t0 = clock()
            try:
                summary, session_id, ok = await self._execute(job)
            except Exception as exc:  # a job's failure is recorded, never fatal to the daemon
                summary, session_id, ok = f"{type(exc).__name__}: {exc}", None, False
            run = JobRun(job.name, _iso(started), ok, summary, session_id, clock() - t0)
            self.store.record(run)
        return run

    async def _execute(self, job: Job) -> tuple[str, str | None, bool]:
        if job.name == "dream" and job.builtin:
            from kenning.learning.dream import Dreamer

            report = await asyncio.to_thread(Dreamer(self.home, clock=self.clock).run)
            what = f"{len(report.promoted)} promoted of {len(report.considered)} considered"
            return (
                f"dream: {what}" + (f"; {report.aborted}" if report.aborted else ""),
                None,
                True,
            )
        if job.name == "curator" and job.builtin:
            from kenning.skills.curator import Curator
            from kenning.skills.library import SkillLibrary

            curation = await asyncio.to_thread(Curator(SkillLibrary.for_home(self.home)).run)
            return (f"curator: {len(curation.transitions)} transition(s)", None, True)
        if job.name == "sync" and job.builtin:
            from kenning.sync.engine import Syncer, SyncError

            try:
                done = await asyncio.to_thread(Syncer(self.home).sync)
            except SyncError as exc:
                return (f"sync: {str(exc).splitlines()[0]}", None, False)
            notes = f"; {len(done.reports)} note(s): kenning sync --status" if done.reports else ""
            return (f"sync: {done.outcome}{notes}", None, True)
        return await run_agent_job(self.home, job, model=self.model, now=self.clock())

    async def serve(self, *, stop: asyncio.Event | None = None, once: bool = False) -> None:
        """Hold the home's daemon lock and run due jobs until ``stop`` (Busy if taken)."""
        halt = stop or asyncio.Event()
        with try_lock(locks_dir(self.home.root) / "daemon.lock"):
            while not halt.is_set():
                for run in await self.tick():
                    log.info("%s %s: %s", run.name, "ok" if run.ok else "FAILED", run.summary)
                if once:
                    return
                await _wait(halt, self._sleep_s())

    def _sleep_s(self) -> float:
        now = self.clock()
        upcoming = [(self.next_due(j) - now).total_seconds() for j in self.store.jobs()]
        soonest = min(upcoming, default=self.home.config.cron.poll_s)
        return max(1.0, min(self.home.config.cron.poll_s, soonest))


async def _wait(event: asyncio.Event, seconds: float) -> None:
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(event.wait(), timeout=seconds)


CRON_PREAMBLE = (
    "[Scheduled job '{name}' ({schedule}). Nobody is watching this session: do the task "
    "and answer with the result, completely and on its own. Memory and skills are read-only here.]"
)


async def run_agent_job(
    home: Home, job: Job, *, model: Model | None = None, now: datetime | None = None
) -> tuple[str, str | None, bool]:
    """One agent session of source ``cron`` for ``job``: (summary, session id, ok)."""
    if job.goal:
        return await run_goal_job(home, job, model=model)
    from kenning.agent.loop import AgentSettings
    from kenning.learning.review_tools import quiet_archive_tools
    from kenning.runtime.factory import open_session

    cwd = Path(job.cwd) if job.cwd and Path(job.cwd).is_dir() else home.root
    settings = AgentSettings.from_home(home, memory_writable=False, stream=False)
    session = open_session(
        home,
        model=model or (job.model or None),
        source="cron",
        cwd=cwd,
        task=job.task,
        settings=settings,
    )
    for tool in quiet_archive_tools(home):
        session.tools.register(tool, replace=True)
    home.archive.set_title(session.session_id, f"cron {job.name}: {job.task[:60]}")
    prompt = CRON_PREAMBLE.format(name=job.name, schedule=job.schedule) + "\n\n" + job.task
    ended = None
    try:
        ended = await session.run(prompt)
    finally:
        await session.close(f"cron {ended.reason if ended else 'interrupted'}")
    answer = ended.answer.strip()
    if job.output:
        _append_output(Path(job.output).expanduser(), job, now or clock.local(), ended.ok, answer)
    if not ended.ok:
        return (
            ended.error or f"ended without an answer ({ended.reason})",
            session.session_id,
            False,
        )
    first = answer.splitlines()[0][:120] if answer else "(empty answer)"
    return (first, session.session_id, True)


async def run_goal_job(
    home: Home, job: Job, *, model: Model | None = None
) -> tuple[str, str | None, bool]:
    """One run of a goal job: continue its unfinished goal session, or start one.

    The goal is re-queued until it is done: a run that stops on its budget,
    without progress or on an error is continued by the job's next run, with a
    fresh budget of turns. ``ok`` is True only for a done goal.
    """
    from kenning.agent import goal as goals
    from kenning.agent.loop import AgentSettings
    from kenning.learning.review_tools import quiet_archive_tools
    from kenning.runtime.factory import open_session

    agent = home.config.agent
    per_run = job.max_turns or agent.goal_max_turns
    resume, state = _unfinished_goal(home, job.name)
    if state is None:
        budget = goals.Budget(max_turns=per_run, max_idle_turns=agent.goal_idle_turns)
        state = goals.GoalState(job.task, check=job.check, budget=budget, job=job.name)
    else:
        state.status, state.idle_turns = goals.RUNNING, 0
        state.budget = replace(state.budget, max_turns=state.turns + per_run)
    cwd = Path(job.cwd) if job.cwd and Path(job.cwd).is_dir() else home.root
    session = open_session(
        home,
        model=model or (job.model or None),
        source="cron",
        cwd=cwd,
        resume=resume,
        task=job.task,
        settings=AgentSettings.from_home(home, memory_writable=False, stream=False),
    )
    for tool in quiet_archive_tools(home):
        session.tools.register(tool, replace=True)
    if resume is None:
        home.archive.set_title(session.session_id, f"cron goal {job.name}: {job.task[:60]}")
    ended: goals.GoalEnded | None = None
    try:
        async for event in goals.run_goal(
            session, state, check_timeout_s=agent.goal_check_timeout_s
        ):
            if isinstance(event, goals.GoalEnded):
                ended = event
    finally:
        await session.close(f"goal {ended.status}" if ended else "interrupted")
    if agent.goal_review_scope != "global":
        goals.record_outcome(session, state)
    assert ended is not None
    return goals.describe_end(ended), session.session_id, ended.status.startswith("done")


def _unfinished_goal(home: Home, job_name: str) -> tuple[str | None, Any]:
    """The job's latest goal session and its state, if that goal is not done."""
    from kenning.agent import goal as goals

    for session in home.archive.sessions(limit=50, sources=["cron"]):
        state = goals.GoalState.from_meta(session.meta.get(goals.META_KEY))
        if state is not None and state.job == job_name:
            return (None, None) if state.status.startswith("done") else (session.id, state)
    return None, None


def _append_output(path: Path, job: Job, moment: datetime, ok: bool, answer: str) -> None:
    heading = f"## {moment:%Y-%m-%d %H:%M} · cron {job.name}{'' if ok else ' (failed)'}"
    with exclusive_lock(lock_path_for(path)):
        old = path.read_text(encoding="utf-8") if path.exists() else ""
        sep = "" if not old or old.endswith("\n\n") else ("\n" if old.endswith("\n") else "\n\n")
        atomic_write(path, f"{old}{sep}{heading}\n{answer or '(no answer)'}\n")


def describe_next(scheduler: Scheduler, job: Job) -> str:
    return _iso(scheduler.next_due(job))
