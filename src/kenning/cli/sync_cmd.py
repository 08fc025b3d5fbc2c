"""``kenning sync``: the same home on several machines, through any git remote."""

from __future__ import annotations

import sys
from typing import Any

import click

from kenning.cli.context import CliState, echo_json, pass_state
from kenning.sync.engine import SyncConflict, Syncer, SyncError


@click.command("sync")
@click.argument("remote", required=False)
@click.option(
    "--remote",
    "set_url",
    metavar="URL",
    help="Remember URL as this machine's sync remote (git remote 'kenning'), then sync.",
)
@click.option(
    "--status",
    "show_status",
    is_flag=True,
    help="Show ahead/behind, last sync, pending conflicts (no network).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@pass_state
def sync_command(
    state: CliState, remote: str | None, set_url: str | None, show_status: bool, as_json: bool
) -> None:
    """Pull, merge and push this home with a git remote.

    REMOTE is a remote name or URL for this one sync; without it, the remote
    set by `--remote URL` (kept per machine), else `remote` under [sync] in
    config.toml. Any git remote works: a bare repository on a shared disk,
    ssh://host/path, a hosting service.

    MEMORY.md and USER.md merge entry by entry (an entry edited differently
    on both machines is kept twice and reported; entries arriving that the
    threat scan refuses are held back in backups/sync/quarantine.jsonl), the
    journal merges as the union of each day's entries, skills merge file by
    file (a skill git cannot merge stays as it is here, the remote's copy is
    saved in backups/sync/). Any other file git cannot merge stops the sync
    with nothing changed here, and the command exits 1.
    """
    syncer = Syncer(state.home())
    if show_status:
        _status(syncer, as_json)
        return
    try:
        if set_url:
            syncer.set_remote(set_url)
        result = syncer.sync(remote)
    except SyncConflict as exc:
        if as_json:
            echo_json({"outcome": "conflict", "conflicts": exc.conflicts, "message": str(exc)})
            sys.exit(1)
        raise click.ClickException(str(exc)) from exc
    except SyncError as exc:
        if as_json:
            echo_json({"outcome": "failed", "message": str(exc)})
            sys.exit(1)
        raise click.ClickException(str(exc)) from exc
    if as_json:
        echo_json(result.as_dict())
        return
    words = {
        "up-to-date": "already up to date",
        "pushed": "pushed this home's changes",
        "pulled": "took the remote's changes",
        "merged": "merged both sides and pushed",
    }
    click.echo(f"Synced with {result.remote} ({result.branch}): {words[result.outcome]}.")
    for report in result.reports:
        click.echo(f"note: {report.message}")


def _status(syncer: Syncer, as_json: bool) -> None:
    status: dict[str, Any] = syncer.status()
    if as_json:
        echo_json(status)
        return
    where = f" ({status['url']})" if status.get("url") else ""
    click.echo(f"remote:      {status['remote'] or 'none (kenning sync --remote URL)'}{where}")
    if status["ahead"] is not None:
        click.echo(f"ahead/behind: {status['ahead']} / {status['behind']} (as of the last fetch)")
    click.echo(f"last sync:   {status['last_sync'] or 'never'}")
    if status["last_result"] and status["last_result"] != "ok":
        click.echo(f"last try:    {status['last_attempt']} ({status['last_result']})")
    if status["interrupted"]:
        click.echo("interrupted: a sync was killed mid-way; the next sync finishes it")
    for conflict in status["conflicts"]:
        click.echo(f"conflict:    {conflict}")
    for report in status["reports"]:
        click.echo(f"note:        {report['message']}")
