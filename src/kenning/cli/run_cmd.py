"""``kenning run "TASK"``: one task, headless.

The answer streams to stdout; tool activity goes to stderr so a pipe gets
only the answer. ``--json`` streams every event as one JSON line instead.
Exit codes: 0 final answer, 1 the turn ended without one (error, iteration
or time budget), 2 no model configured, 130 interrupted. ``--goal`` runs
turns until the goal's policy stops (``kenning.agent.goal``); its statuses
have their own exit codes (``goal.EXIT_CODES``).
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any, NoReturn

import click

from kenning.agent import goal as goals
from kenning.agent.events import (
    Event,
    Notice,
    TextChunk,
    ToolFinished,
    ToolStarted,
    TurnEnded,
    describe_call,
)
from kenning.agent.events import to_dict as event_dict
from kenning.agent.loop import AgentSession
from kenning.cli.context import CliState, pass_state
from kenning.context.transcript import TranscriptError
from kenning.home import Home
from kenning.models.errors import ModelNotConfigured
from kenning.providers.base import ProviderError
from kenning.runtime.factory import open_session

EXIT_NO_ANSWER = 1
EXIT_NOT_CONFIGURED = 2
EXIT_INTERRUPTED = 130


def open_or_explain(state: CliState, **kwargs: object) -> AgentSession:
    """Open a session, or exit with the how-to when no model is configured."""
    home = state.home()
    try:
        return open_session(home, **kwargs)  # type: ignore[arg-type]
    except ModelNotConfigured as exc:
        click.echo(f"kenning: {exc}", err=True)
        sys.exit(EXIT_NOT_CONFIGURED)
    except (TranscriptError, ProviderError) as exc:
        raise click.ClickException(str(exc)) from exc


@click.command("run")
@click.argument("task", required=False)
@click.option("--model", "-m", metavar="MODEL", help="provider:model, e.g. openai:gpt-4.1-mini.")
@click.option("--json", "as_json", is_flag=True, help="Stream events as JSON lines.")
@click.option("--resume", metavar="SESSION", help="Continue an archived session (or its goal).")
@click.option(
    "--cwd",
    type=click.Path(file_okay=False, exists=True, path_type=Path),
    help="Working directory for the tools (default: here).",
)
@click.option("--max-iterations", type=click.IntRange(min=1), help="Model requests at most.")
@click.option("--goal", metavar="GOAL", help="Work on GOAL over many turns until it is done.")
@click.option("--check", metavar="CMD", help="With --goal: the goal is done when CMD exits 0.")
@click.option("--max-turns", type=click.IntRange(min=1), help="With --goal: turns at most.")
@click.option("--max-tokens", type=click.IntRange(min=1), help="With --goal: tokens at most.")
@click.option("--max-time", metavar="DURATION", help="With --goal: wall time, e.g. 30m or 2h.")
@pass_state
def run_command(
    state: CliState,
    task: str | None,
    model: str | None,
    as_json: bool,
    resume: str | None,
    cwd: Path | None,
    max_iterations: int | None,
    goal: str | None,
    check: str | None,
    max_turns: int | None,
    max_tokens: int | None,
    max_time: str | None,
) -> None:
    """Run one TASK headless and print the answer, or work on a --goal until it is done.

    Shell commands outside agent.shell_allow (read-only ones such as ls,
    cat, git status by default) and Python cells that need approval are
    refused: nobody can be asked. Allow more programs with
    `--set agent.shell_allow=…` (and `agent.python_approval`).

    A goal run ends with its status and exit code: 0 done (check passed), 10
    done (declared, no check), 11 stopped: budget, 12 stopped: no progress,
    13 stopped: error. `--resume SESSION` continues an unfinished goal.

    \b
    Examples:
      kenning run "Summarise README.md in three bullets"
      kenning run --json --model ollama:qwen3 "List the TODOs in src/"
      kenning run --goal "Make the tests pass" --check "pytest -q" --max-time 30m
    """
    home = state.home()
    stored_goal = _stored_goal(home, resume) if resume else None
    goal_options = check or max_turns or max_tokens or max_time
    more_budget = max_turns or max_tokens or max_time
    if stored_goal is not None and stored_goal.status == goals.STOPPED_BUDGET and more_budget:
        stored_goal.status = goals.RUNNING  # a larger budget lets a stopped goal go on
    if goal is None and (stored_goal is None or stored_goal.finished):
        if goal_options:
            raise click.UsageError("--check and the --max-… budgets go with --goal.")
        if not task:
            raise click.UsageError('say what to do: kenning run "TASK" (or --goal "GOAL").')
    if goal is not None and task:
        raise click.UsageError("give the goal with --goal or a TASK, not both.")
    if goal is not None and stored_goal is not None and not stored_goal.finished:
        raise click.UsageError(
            f"session {resume} already works on a goal; resume it without --goal."
        )
    if goal is not None or (stored_goal is not None and not stored_goal.finished):
        _run_goal(
            state,
            home,
            goal,
            stored_goal,
            task,
            model,
            as_json,
            resume,
            cwd,
            max_iterations,
            check,
            max_turns,
            max_tokens,
            max_time,
        )
        return
    assert task is not None
    session = open_or_explain(state, model=model, source="run", cwd=cwd, resume=resume, task=task)
    if max_iterations is not None:
        session.settings = replace(session.settings, max_iterations=max_iterations)
    try:
        ended = asyncio.run(_run(session, task, as_json))
    except KeyboardInterrupt:
        _interrupted(session)
    sys.exit(0 if ended.ok else EXIT_NO_ANSWER)


def _interrupted(session: AgentSession) -> NoReturn:
    click.echo(
        "\ninterrupted — the transcript is saved; resume with "
        f"`kenning run --resume {session.session_id} …`",
        err=True,
    )
    sys.exit(EXIT_INTERRUPTED)


def _stored_goal(home: Home, session_id: str) -> goals.GoalState | None:
    stored = home.archive.session(session_id)
    return goals.GoalState.from_meta((stored.meta if stored else {}).get(goals.META_KEY))


def _run_goal(
    state: CliState,
    home: Home,
    goal: str | None,
    stored: goals.GoalState | None,
    task: str | None,
    model: str | None,
    as_json: bool,
    resume: str | None,
    cwd: Path | None,
    max_iterations: int | None,
    check: str | None,
    max_turns: int | None,
    max_tokens: int | None,
    max_time: str | None,
) -> None:
    agent = home.config.agent
    try:
        seconds = goals.parse_duration(max_time) if max_time else None
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--max-time") from exc
    if stored is not None:
        budget = stored.budget
        goal_state = stored
    else:
        assert goal is not None
        if not goal.strip():
            raise click.UsageError("the goal is empty: say what must be achieved.")
        budget = goals.Budget(max_turns=agent.goal_max_turns, max_idle_turns=agent.goal_idle_turns)
        goal_state = goals.GoalState(goal.strip(), check=(check or "").strip(), budget=budget)
    changes: dict[str, Any] = {
        k: v
        for k, v in (("max_turns", max_turns), ("max_tokens", max_tokens), ("max_time_s", seconds))
        if v is not None
    }
    if changes:  # on a resume, a larger budget lets a stopped goal go on
        goal_state.budget = replace(budget, **changes)
    if check and stored is not None:
        goal_state.check = check.strip()
    scope_global = agent.goal_review_scope == "global"
    session = open_or_explain(
        state,
        model=model,
        source="run",
        cwd=cwd,
        resume=resume,
        task=goal_state.goal,
        review=scope_global,
    )
    if max_iterations is not None:
        session.settings = replace(session.settings, max_iterations=max_iterations)
    try:
        ended = asyncio.run(
            _goal(session, goal_state, as_json, agent.goal_check_timeout_s, task or "")
        )
    except KeyboardInterrupt:
        _interrupted(session)
    if not scope_global:
        goals.record_outcome(session, goal_state)
    sys.exit(ended.exit_code)


async def _goal(
    session: AgentSession,
    goal_state: goals.GoalState,
    as_json: bool,
    check_timeout_s: float,
    extra: str,
) -> goals.GoalEnded:
    ended: goals.GoalEnded | None = None
    try:
        async for event in goals.run_goal(
            session, goal_state, check_timeout_s=check_timeout_s, extra=extra
        ):
            if isinstance(event, goals.GoalEnded):
                ended = event
                if as_json:
                    click.echo(json.dumps(dataclasses.asdict(event), ensure_ascii=False))
                else:
                    click.echo(f"\nkenning: {goals.describe_end(event)}", err=True)
            elif as_json:
                click.echo(json.dumps(event_dict(event), ensure_ascii=False))
            else:
                _render_plain(event)
    finally:
        await session.close(f"goal {ended.status}" if ended is not None else "interrupted")
    assert ended is not None
    return ended


async def _run(session: AgentSession, task: str, as_json: bool) -> TurnEnded:
    ended: TurnEnded | None = None
    try:
        async for event in session.turn(task):
            if as_json:
                click.echo(json.dumps(event_dict(event), ensure_ascii=False))
            else:
                _render_plain(event)
            if isinstance(event, TurnEnded):
                ended = event
    finally:
        reason = ended.reason if ended is not None else "interrupted"
        await session.close(reason)
    assert ended is not None
    return ended


def _render_plain(event: Event) -> None:
    if isinstance(event, TextChunk):
        click.echo(event.text, nl=False)
    elif isinstance(event, ToolStarted):
        click.echo(f"\n→ {describe_call(event.call)}", err=True)
    elif isinstance(event, ToolFinished) and not event.ok:
        first = event.result.splitlines()[0] if event.result else "failed"
        click.echo(f"  ✗ {first[:200]}", err=True)
    elif isinstance(event, Notice):
        click.echo(f"kenning: {event.level}: {event.text}", err=True)
    elif isinstance(event, TurnEnded):
        if event.answer:
            click.echo()
        if not event.ok:
            click.echo(f"kenning: {event.error or event.reason}", err=True)
