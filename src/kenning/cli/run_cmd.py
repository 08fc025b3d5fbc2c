"""``kenning run "TASK"``: one task, headless.

The answer streams to stdout; tool activity goes to stderr so a pipe gets
only the answer. ``--json`` streams every event as one JSON line instead.
Exit codes: 0 final answer, 1 the turn ended without one (error, iteration
or time budget), 2 no model configured, 130 interrupted.
"""

from __future__ import annotations

import asyncio
import json
import sys
from dataclasses import replace
from pathlib import Path

import click

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
@click.argument("task")
@click.option("--model", "-m", metavar="MODEL", help="provider:model, e.g. openai:gpt-4.1-mini.")
@click.option("--json", "as_json", is_flag=True, help="Stream events as JSON lines.")
@click.option("--resume", metavar="SESSION", help="Continue an archived session.")
@click.option(
    "--cwd",
    type=click.Path(file_okay=False, exists=True, path_type=Path),
    help="Working directory for the tools (default: here).",
)
@click.option("--max-iterations", type=click.IntRange(min=1), help="Model requests at most.")
@pass_state
def run_command(
    state: CliState,
    task: str,
    model: str | None,
    as_json: bool,
    resume: str | None,
    cwd: Path | None,
    max_iterations: int | None,
) -> None:
    """Run one TASK headless and print the answer.

    Shell commands outside agent.shell_allow (read-only ones such as ls,
    cat, git status by default) are refused: nobody can be asked. Allow more
    programs with `--set agent.shell_allow=…`.

    \b
    Examples:
      kenning run "Summarise README.md in three bullets"
      kenning run --json --model ollama:qwen3 "List the TODOs in src/"
    """
    session = open_or_explain(state, model=model, source="run", cwd=cwd, resume=resume, task=task)
    if max_iterations is not None:
        session.settings = replace(session.settings, max_iterations=max_iterations)
    try:
        ended = asyncio.run(_run(session, task, as_json))
    except KeyboardInterrupt:
        click.echo(
            "\ninterrupted — the transcript is saved; resume with "
            f"`kenning run --resume {session.session_id} …`",
            err=True,
        )
        sys.exit(EXIT_INTERRUPTED)
    sys.exit(0 if ended.ok else EXIT_NO_ANSWER)


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
