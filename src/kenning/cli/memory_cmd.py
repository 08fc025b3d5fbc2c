"""``kenning memory …``: show, change and version the hot-memory files.

Exit codes, for scripts: 0 done (including "already saved"), 1 other error,
2 usage error, 3 over budget, 4 blocked by the safety scan, 5 no match or
ambiguous match, 6 the file on disk cannot be used (no longer parses as
entries, or is a link, a directory, too large or unreadable).
"""

from __future__ import annotations

import dataclasses
import sys
from typing import NoReturn

import click

from kenning.cli.context import CliState, echo_json, pass_state
from kenning.history import HistoryError
from kenning.memory.proposals import ProposalError
from kenning.memory.revert import revert_change
from kenning.memory.store import (
    ErrorKind,
    MemoryFileError,
    MemoryState,
    MemoryWriteError,
    Target,
    WriteResult,
)
from kenning.memory.wording import refusal_lines, report_lines

EXIT_CODES = {
    ErrorKind.OVER_BUDGET: 3,
    ErrorKind.BLOCKED: 4,
    ErrorKind.NO_MATCH: 5,
    ErrorKind.AMBIGUOUS: 5,
    ErrorKind.UNPARSEABLE: 6,
    ErrorKind.UNUSABLE: 6,
}

user_flag = click.option(
    "--user", "user", is_flag=True, help="Act on USER.md (the user profile) instead of MEMORY.md."
)


def _target(user: bool) -> Target:
    return Target.USER if user else Target.MEMORY


@click.group()
def memory() -> None:
    """Hot memory: MEMORY.md (your agent's notes) and USER.md (about you)."""


def _print_state(state: MemoryState, path: str) -> None:
    count = len(state.entries)
    click.echo(
        f"{state.target.filename}  {state.usage_line()}  "
        f"({count} entr{'y' if count == 1 else 'ies'})  {path}"
    )
    if state.used > state.budget:
        click.secho("  over budget: consolidate entries before adding more", fg="yellow")
    for number, entry in enumerate(state.entries, 1):
        lines = entry.splitlines()
        click.echo(f"{number:>3}. [{len(entry):>4}] {lines[0]}")
        for line in lines[1:]:
            click.echo(f"{'':12}{line}")


def _state_json(state: MemoryState, path: str) -> dict[str, object]:
    return {
        "target": state.target.value,
        "path": path,
        "budget": state.budget,
        "used": state.used,
        "percent": state.percent,
        "entries": [{"index": i, "chars": len(e), "text": e} for i, e in enumerate(state.entries)],
    }


def _refuse(exc: MemoryWriteError) -> NoReturn:
    first, *rest = refusal_lines(exc)
    click.secho(first, fg="red", err=True)
    for line in rest:
        click.echo(line, err=True)
    sys.exit(EXIT_CODES.get(exc.kind, 1))


def _report(result: WriteResult) -> None:
    lines = report_lines(result)
    if not result.changed:
        click.echo(lines.done[0])
        return
    for line in lines.done[:-1]:
        click.echo(line)
    for line in lines.warnings:
        warning = line.startswith("warning:")
        click.secho(line, fg="yellow" if warning else None, err=True)
    click.echo(lines.done[-1])


@memory.command("show")
@user_flag
@click.option("--json", "as_json", is_flag=True, help="Print entries, sizes and usage as JSON.")
@pass_state
def show(state: CliState, user: bool, as_json: bool) -> None:
    """List the live entries with their sizes and the usage of the budget."""
    store = state.home().memory
    target = _target(user)
    try:
        current = store.read(target)
    except MemoryFileError as exc:
        raise click.ClickException(str(exc)) from exc
    path = str(store.path(target))
    if as_json:
        echo_json(_state_json(current, path))
    else:
        _print_state(current, path)


@memory.command("add")
@user_flag
@click.argument("text")
@click.option(
    "--keep-both",
    is_flag=True,
    help="Both entries are true: no warning that it may update an existing one.",
)
@pass_state
def add(state: CliState, user: bool, text: str, keep_both: bool) -> None:
    """Add TEXT as a new entry (an exact duplicate is not added twice).

    An entry that restates an existing one with another value is added with a
    warning naming that entry, so the old version does not linger unnoticed.
    """
    try:
        store = state.home().memory
        _report(store.add(_target(user), text, reason="kenning memory add", keep_both=keep_both))
    except MemoryWriteError as exc:
        _refuse(exc)


@memory.command("proposals")
@click.option("--all", "show_all", is_flag=True, help="Also list accepted and rejected ones.")
@click.option("--json", "as_json", is_flag=True, help="Print the proposals as JSON.")
@pass_state
def proposals(state: CliState, show_all: bool, as_json: bool) -> None:
    """Entries review or dreaming held for you instead of writing (content from tool
    output or the web that looked borderline). Accept or reject each by its id."""
    queue = state.home().proposals
    items = queue.all() if show_all else queue.pending()
    if as_json:
        echo_json([dataclasses.asdict(p) for p in items])
        return
    if not items:
        click.echo("No proposals waiting." if not show_all else "No proposals.")
        return
    for p in items:
        click.echo(
            f"{p.id}  [{p.status}] → {p.target.upper()}.md  from {p.source} ({p.provenance})"
        )
        click.echo(f"    why held: {p.why}")
        for line in p.content.splitlines():
            click.echo(f"    | {line}")
    if not show_all:
        click.echo(
            "Accept with `kenning memory accept ID`, reject with `kenning memory reject ID`."
        )


@memory.command("accept")
@click.argument("proposal_id")
@pass_state
def accept(state: CliState, proposal_id: str) -> None:
    """Write the held proposal PROPOSAL_ID into memory (it is screened again)."""
    try:
        _report(state.home().proposals.accept(proposal_id))
    except ProposalError as exc:
        raise click.ClickException(str(exc)) from None
    except MemoryWriteError as exc:
        _refuse(exc)


@memory.command("reject")
@click.argument("proposal_id")
@pass_state
def reject(state: CliState, proposal_id: str) -> None:
    """Drop the held proposal PROPOSAL_ID; nothing is written to memory."""
    try:
        proposal = state.home().proposals.reject(proposal_id)
    except ProposalError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(f"Rejected {proposal.id}; nothing was written.")


@memory.command("replace")
@user_flag
@click.argument("old")
@click.argument("new")
@pass_state
def replace(state: CliState, user: bool, old: str, new: str) -> None:
    """Replace the one entry containing OLD with NEW (the full new entry)."""
    try:
        result = state.home().memory.replace(
            _target(user), old, new, reason="kenning memory replace"
        )
        _report(result)
    except MemoryWriteError as exc:
        _refuse(exc)


@memory.command("remove")
@user_flag
@click.argument("old")
@pass_state
def remove(state: CliState, user: bool, old: str) -> None:
    """Remove the one entry containing OLD."""
    try:
        _report(state.home().memory.remove(_target(user), old, reason="kenning memory remove"))
    except MemoryWriteError as exc:
        _refuse(exc)


@memory.command("render")
@pass_state
def render(state: CliState) -> None:
    """Print the exact hot-memory block a new session's system prompt would get."""
    home = state.home()
    click.echo(home.snapshot().render(), nl=False)
    # The block carries a short notice for a file that cannot be used; the
    # person running this gets the full reason and the fix as well.
    for target in Target:
        try:
            home.memory.read(target)
        except MemoryFileError as exc:
            click.secho(f"warning: {exc}", fg="yellow", err=True)


@memory.command("path")
@pass_state
def memory_path(state: CliState) -> None:
    """Print the folder holding MEMORY.md and USER.md."""
    click.echo(str(state.home().layout.memories_dir))


@memory.command("log")
@click.option("-n", "limit", default=20, show_default=True, help="How many changes to list.")
@click.option("--json", "as_json", is_flag=True, help="Print the changes as JSON.")
@pass_state
def log_cmd(state: CliState, limit: int, as_json: bool) -> None:
    """List recent changes to hot memory, newest first."""
    commits = state.home().history.log(["memories"], limit=limit)
    if as_json:
        echo_json([c.__dict__ | {"files": list(c.files)} for c in commits])
        return
    if not commits:
        click.echo("No recorded changes yet.")
    for commit in commits:
        click.echo(f"{commit.rev}  {commit.date[:19].replace('T', ' ')}  {commit.message}")


@memory.command("diff")
@click.argument("rev", required=False)
@pass_state
def diff(state: CliState, rev: str | None) -> None:
    """Show changes to hot memory since REV (default: edits not yet recorded)."""
    try:
        click.echo(state.home().history.diff(rev, ["memories"]), nl=False)
    except HistoryError as exc:
        raise click.ClickException(str(exc)) from exc


@memory.command("revert")
@click.argument("rev")
@pass_state
def revert(state: CliState, rev: str) -> None:
    """Undo the change REV (see `kenning memory log`) as a new, recorded change."""
    home = state.home()
    try:
        outcome = revert_change(home.memory, home.history, rev)
    except (HistoryError, MemoryFileError) as exc:
        raise click.ClickException(str(exc)) from exc
    except MemoryWriteError as exc:
        _refuse(exc)
    for result in outcome.results:
        _report(result)
    for note in outcome.notes:
        click.secho(f"note: {note}", fg="yellow")
    if not outcome.results:
        click.echo("Nothing to undo: the change's effect is already gone.")
