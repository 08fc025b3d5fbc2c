"""``kenning hosts …``: Kenning as the learning loop of an agent you already use.

``install`` changes the host's own files (``kenning.hosts.claude_code`` and
``kenning.hosts.gemini_cli`` say which), ``uninstall`` takes back exactly
that, ``status`` says what is in place. ``hook`` and ``sync`` are what the
installed hooks run; people do not need them.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Literal, cast

import click

from kenning.cli.context import CliState, echo_json, pass_state
from kenning.hosts import HOSTS
from kenning.hosts.files import HostFileError


@click.group()
def hosts() -> None:
    """Connect Kenning to an agent you already run (Claude Code, Gemini CLI)."""


def _where(host: str, scope: str, project: Path | None) -> Any:
    """The host's module and the files it reads for this scope."""
    from kenning.hosts.sync import host_module

    module = host_module(host)
    folder = (project or Path.cwd()).resolve() if scope == "project" else None
    chosen = cast(Literal["user", "project"], scope)
    return module, module.places(chosen, user_home=Path.home(), project=folder)


_host = click.argument("host", type=click.Choice(HOSTS))
_scope = click.option(
    "--scope",
    type=click.Choice(["user", "project"]),
    default="user",
    show_default=True,
    help="user: every project (~/.claude, ~/.gemini); project: this folder only.",
)
_project = click.option(
    "--project",
    type=click.Path(file_okay=False, path_type=Path),
    help="The project folder for --scope project [default: the current folder].",
)


@hosts.command("install")
@_host
@_scope
@_project
@click.option("--no-review", is_flag=True, help="Archive sessions but never review them.")
@click.option(
    "--yes", "-y", is_flag=True, help="Add the memory import (CLAUDE.md, GEMINI.md) without asking."
)
@click.option(
    "--no-claude-md", "--no-memory-md", "no_claude_md", is_flag=True,
    help="Do not add the memory import line to CLAUDE.md / GEMINI.md.",
)  # fmt: skip
@pass_state
def install_cmd(
    state: CliState,
    host: str,
    scope: str,
    project: Path | None,
    no_review: bool,
    yes: bool,
    no_claude_md: bool,
) -> None:
    """Register Kenning's MCP server and hooks in HOST, and export learned skills.

    Every session is then archived as it grows and reviewed in the background
    (--no-review: archived only); skills Kenning's agent makes appear in the
    host's skills folder and follow its patches. With your agreement one line
    in CLAUDE.md imports Kenning's hot memory.
    """
    from kenning.hosts.install import import_line

    if yes and no_claude_md:
        raise click.UsageError("--yes and --no-claude-md contradict each other; give one")
    module, places = _where(host, scope, project)
    memory_md = yes
    if not yes and not no_claude_md:
        line = import_line(module.SPEC, state.home())
        if sys.stdin.isatty():
            memory_md = click.confirm(
                f"Add one line to {places.memory_md} so {module.SPEC.title} reads Kenning's "
                f"hot memory?\n  {line}\n",
                default=False,
            )
        else:
            click.echo(
                f"Not asked (no terminal): {places.memory_md} is left as it is; "
                "run again with --yes to add the memory import."
            )
    try:
        report = module.install(
            state.home(),
            places,
            review=not no_review,
            memory_md=memory_md,
            profile=state.profile,
            assignments=list(state.assignments),
        )
    except HostFileError as exc:
        raise click.ClickException(str(exc)) from exc
    for line in report.done:
        click.echo(f"✓ {line}")
    for note in report.notes:
        click.echo(f"! {note}")
    click.echo(
        f"Start a new Claude Code session to use it; `kenning hosts uninstall {host}` undoes it."
    )


@hosts.command("uninstall")
@_host
@_scope
@_project
@pass_state
def uninstall_cmd(state: CliState, host: str, scope: str, project: Path | None) -> None:
    """Remove exactly what `kenning hosts install` added to HOST."""
    module, places = _where(host, scope, project)
    try:
        notes = module.uninstall(state.home(), places)
    except HostFileError as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(f"Removed Kenning from {host} ({scope} scope).")
    for note in notes:
        click.echo(f"! {note}")


@hosts.command("status")
@_host
@_scope
@_project
@pass_state
def status_cmd(state: CliState, host: str, scope: str, project: Path | None) -> None:
    """Say what Kenning installed in HOST and whether it is still in place."""
    module, places = _where(host, scope, project)
    try:
        lines = module.status(state.home(), places)
    except HostFileError as exc:
        raise click.ClickException(str(exc)) from exc
    for line in lines:
        click.echo(line)


@hosts.command("hook")
@_host
@click.argument("options", nargs=-1, type=click.UNPROCESSED)
def hook_cmd(host: str, options: tuple[str, ...]) -> None:
    """What a hook runs: the event on stdin goes to a background `hosts sync`.

    The installed hooks run the same code as a script (kenning/hosts/hook_entry.py),
    which skips the second it takes to start the CLI.
    """
    from kenning.hosts import hook_entry

    hook_entry.main([host, *options])


@hosts.command("sync", hidden=True)
@_host
@click.option("--event", "raw", required=True, help="The hook's JSON input.")
@click.option("--no-review", is_flag=True, help="Archive only.")
@click.option("--json", "as_json", is_flag=True, help="Print the pass's report as JSON.")
@pass_state
def sync_cmd(state: CliState, host: str, raw: str, no_review: bool, as_json: bool) -> None:
    """One background pass for a hook event: archive new lines, review if due, export."""
    from kenning.hosts.sync import HookEvent, sync

    try:
        report = sync(state.home(), HookEvent.parse(raw), host=host, review=not no_review)
    except HostFileError as exc:
        raise click.ClickException(str(exc)) from exc
    if as_json:
        echo_json(report.to_dict())
    else:
        click.echo(
            f"archived {report.added} messages into {report.session_id or '(none yet)'}; "
            f"review: {report.review or 'n/a'}"
        )
