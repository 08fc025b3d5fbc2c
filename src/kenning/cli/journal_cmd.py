"""``kenning journal …``: the day-by-day, append-only short-term memory."""

from __future__ import annotations

from datetime import date

import click

from kenning.cli.context import CliState, echo_json, pass_state
from kenning.journal import JournalError


@click.group()
def journal() -> None:
    """The journal: one append-only Markdown file a day under memory/."""


@journal.command("add")
@click.argument("text")
@pass_state
def add(state: CliState, text: str) -> None:
    """Append TEXT to today's journal (scanned like hot memory)."""
    try:
        done = state.home().journal.append(text, source="cli", reason="kenning journal add")
    except JournalError as exc:
        raise click.ClickException(str(exc)) from exc
    suffix = f" (commit {done.commit})" if done.commit else ""
    click.echo(f"Appended to {done.path}{suffix}")


@journal.command("show")
@click.argument("day", required=False)
@pass_state
def show(state: CliState, day: str | None) -> None:
    """Print the journal of DAY (YYYY-MM-DD, 'today' or 'yesterday'; default today)."""
    home = state.home()
    wanted = _parse_day(day, home.journal.clock().date())
    try:
        text = home.journal.read(wanted)
    except JournalError as exc:
        raise click.ClickException(str(exc)) from exc
    if text is None:
        click.echo(f"No journal for {wanted.isoformat()}.")
        return
    click.echo(text, nl=False)


@journal.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print the days as JSON.")
@pass_state
def list_days(state: CliState, as_json: bool) -> None:
    """List the days that have a journal, oldest first."""
    days = state.home().journal.days()
    if as_json:
        echo_json([d.isoformat() for d in days])
        return
    for day in days:
        click.echo(day.isoformat())
    if not days:
        click.echo("No journal entries yet.")


@journal.command("path")
@pass_state
def path(state: CliState) -> None:
    """Print the folder holding the journal files."""
    click.echo(str(state.home().layout.journal_dir))


def _parse_day(day: str | None, today: date) -> date:
    if day in (None, "today"):
        return today
    if day == "yesterday":
        return date.fromordinal(today.toordinal() - 1)
    try:
        return date.fromisoformat(day)
    except ValueError as exc:
        raise click.BadParameter(
            f"{day!r} is not a date; use YYYY-MM-DD, 'today' or 'yesterday'"
        ) from exc
