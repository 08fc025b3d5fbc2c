"""``kenning cron …`` and ``kenning daemon``: scheduled agent jobs, dreaming and curation.

Schedules: ``every 30m``, ``every 2h``, ``hourly``, ``daily 03:00``,
``weekly sun 04:00`` or a cron expression (``0 9 * * mon-fri``), in local
time. ``kenning daemon`` runs what is due — your jobs, nightly dreaming and
the weekly skill curator — one daemon per home.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import re
import signal
import sys
from pathlib import Path

import click

from kenning import clock
from kenning.cli.context import CliState, echo_json, pass_state
from kenning.cron.schedule import ScheduleError
from kenning.cron.scheduler import CronError, Job, JobStore, Scheduler
from kenning.locks import Busy
from kenning.models.errors import ModelError, ModelNotConfigured
from kenning.models.registry import how_to_configure


def _fail(exc: Exception) -> click.ClickException:
    return click.ClickException(str(exc))


@click.group("cron")
def cron() -> None:
    """Scheduled agent jobs, run by `kenning daemon` (dreaming and curation are built in)."""


@cron.command("add")
@click.argument("schedule")
@click.argument("task")
@click.option("--name", "-n", help="A short name (default: from the task's first words).")
@click.option("--model", "-m", metavar="MODEL", help="Model for this job (default: [model]).")
@click.option(
    "--output",
    "-o",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Also append each answer to this file.",
)
@click.option(
    "--cwd",
    type=click.Path(file_okay=False, exists=True, path_type=Path),
    help="Working directory for the job's tools (default: the home).",
)
@click.option(
    "--goal", "is_goal", is_flag=True, help="TASK is a goal: each run continues it until done."
)
@click.option("--check", metavar="CMD", help="With --goal: the goal is done when CMD exits 0.")
@click.option(
    "--max-turns", type=click.IntRange(min=1), help="With --goal: turns per run (default config)."
)
@pass_state
def add(
    state: CliState,
    schedule: str,
    task: str,
    name: str | None,
    model: str | None,
    output: Path | None,
    cwd: Path | None,
    is_goal: bool,
    check: str | None,
    max_turns: int | None,
) -> None:
    """Add a job that runs TASK on SCHEDULE, e.g. `cron add "daily 08:00" "Summarise my inbox"`.

    SCHEDULE is `every 30m`, `every 2h`, `hourly`, `daily 03:00`, `weekly sun 04:00`
    or a five-field cron expression, in local time. With --goal, TASK is a goal
    (as in `kenning run --goal`): each run works on it for up to --max-turns
    turns, and the next run continues it until --check passes or it is done.
    """
    if (check or max_turns) and not is_goal:
        raise click.UsageError("--check and --max-turns go with --goal.")
    home = state.home()
    if not (model or "").strip() and not home.config.model.default.strip():
        # Refused now rather than failing at 3 a.m. when the daemon runs it.
        raise click.ClickException(
            "this job has no model to run with: pass --model PROVIDER:MODEL, or set one "
            "for every job.\n" + how_to_configure(home.layout.config_file)
        )
    store = JobStore(home)
    job = Job(
        name=name or _slug(task),
        schedule=schedule,
        task=task,
        model=model or "",
        output=str(output.resolve()) if output else "",
        cwd=str(cwd.resolve()) if cwd else "",
        created_at=clock.local().isoformat(timespec="seconds"),
        goal=is_goal,
        check=(check or "").strip(),
        max_turns=max_turns or 0,
    )
    try:
        store.add(job)
    except (CronError, ScheduleError) as exc:
        raise _fail(exc) from exc
    due = Scheduler(state.home()).next_due(job)
    click.echo(f"added job '{job.name}' ({job.schedule}); next run {due:%Y-%m-%d %H:%M}")


def _slug(task: str) -> str:
    words = re.findall(r"[a-z0-9]+", task.lower())[:4]
    return "-".join(words)[:40] or "job"


@cron.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print the jobs as JSON.")
@pass_state
def list_jobs(state: CliState, as_json: bool) -> None:
    """List jobs with their schedule, next run and last result."""
    home = state.home()
    scheduler = Scheduler(home)
    try:
        jobs = scheduler.store.jobs()
        runs = scheduler.store.state()
        rows = [
            {
                **dataclasses.asdict(job),
                "next_run": scheduler.next_due(job).isoformat(timespec="minutes"),
                "last": runs.get(job.name),
            }
            for job in jobs
        ]
    except (CronError, ScheduleError) as exc:
        raise _fail(exc) from exc
    if as_json:
        echo_json(rows)
        return
    if not rows:
        click.echo("no jobs; add one with `kenning cron add SCHEDULE TASK`")
    for row in rows:
        last = row["last"]
        result = (
            "never ran"
            if not last
            else f"last {last['started_at']} {'ok' if last['ok'] else 'FAILED'}"
        )
        what = "(built in)" if row["builtin"] else row["task"][:50]
        click.echo(
            f"{row['name']:<20} {row['schedule']:<18} next {row['next_run']}  {result}  {what}"
        )


@cron.command("remove")
@click.argument("name")
@pass_state
def remove(state: CliState, name: str) -> None:
    """Remove the job NAME (built-in jobs are turned off in config.toml instead)."""
    try:
        JobStore(state.home()).remove(name)
    except CronError as exc:
        raise _fail(exc) from exc
    click.echo(f"removed job '{name}'")


@cron.command("run")
@click.argument("name")
@click.option("--json", "as_json", is_flag=True, help="Print the run as JSON.")
@pass_state
def run_now(state: CliState, name: str, as_json: bool) -> None:
    """Run the job NAME now, in the foreground (it counts as its latest run)."""
    home = state.home()
    scheduler = Scheduler(home)
    try:
        job = scheduler.store.get(name)
        result = asyncio.run(scheduler.run_job(job))
    except CronError as exc:
        raise _fail(exc) from exc
    except Busy as exc:
        raise click.ClickException(f"job '{name}' is running in another process ({exc})") from exc
    except ModelNotConfigured as exc:
        click.echo(f"kenning: {exc}", err=True)
        sys.exit(2)
    except ModelError as exc:
        raise _fail(exc) from exc
    if as_json:
        echo_json(dataclasses.asdict(result))
    else:
        where = f" (session {result.session_id})" if result.session_id else ""
        click.echo(f"{name}: {'ok' if result.ok else 'FAILED'}{where} — {result.summary}")
    if not result.ok:
        sys.exit(1)


@click.command("daemon")
@click.option("--once", is_flag=True, help="Run what is due now, then exit (for system cron).")
@pass_state
def daemon_command(state: CliState, once: bool) -> None:
    """Run due cron jobs, nightly dreaming and the weekly skill curator until stopped.

    One daemon per home: a second one exits at once, naming the first. A job
    missed while no daemon ran runs once at the next start. Ctrl-C or SIGTERM
    stops it between jobs.
    """
    home = state.home()
    logging.getLogger("kenning.learning").setLevel(logging.INFO)
    scheduler = Scheduler(home)

    async def serve() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.add_signal_handler(sig, stop.set)
        await scheduler.serve(stop=stop, once=once)

    try:
        if not once:
            click.echo(f"kenning daemon: serving {home.root} (Ctrl-C to stop)", err=True)
        asyncio.run(serve())
    except Busy as exc:
        who = f" (pid {exc.holder})" if exc.holder else ""
        raise click.ClickException(f"another daemon{who} already runs this home") from exc
    except (CronError, ScheduleError) as exc:
        raise _fail(exc) from exc
