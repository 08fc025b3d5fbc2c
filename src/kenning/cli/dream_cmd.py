"""``kenning dream``: consolidate the journal and the recall log into MEMORY.md.

Rule-based, no model needed. Light sleep gathers and merges recent
candidates, REM finds recurring themes, deep sleep promotes only candidates
past every gate (``[dream]`` in config.toml). The report goes to DREAMS.md.
"""

from __future__ import annotations

import click

from kenning.cli.context import CliState, echo_json, pass_state
from kenning.learning.dream import PHASES, Dreamer


@click.command("dream")
@click.option("--dry-run", is_flag=True, help="Report what would happen; write nothing.")
@click.option(
    "--phase",
    type=click.Choice(list(PHASES)),
    help="Run one phase only (default: light, then REM, then deep).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@pass_state
def dream_command(state: CliState, dry_run: bool, phase: str | None, as_json: bool) -> None:
    """Consolidate recent notes and recalls into MEMORY.md, under gates; report in DREAMS.md.

    A candidate is promoted only when its score, how often it was recalled,
    by how many distinct queries and its age all pass; at most a few per run,
    never past MEMORY.md's budget, and never over a MEMORY.md that changed
    while the run was deciding.

    \b
    Examples:
      kenning dream --dry-run
      kenning dream --phase rem
    """
    home = state.home()
    report = Dreamer(home).run(phases=(phase,) if phase else PHASES, dry_run=dry_run)
    if as_json:
        echo_json(report.to_dict())
        return
    if report.light:
        click.echo(f"light: {len(report.light)} recent candidate(s)")
    if "rem" in report.phases or "deep" in report.phases:
        words = ", ".join(t.word for t in report.themes) or "none"
        click.echo(f"rem: themes {words}")
    if "deep" in report.phases:
        verb = "would promote" if dry_run else "promoted"
        click.echo(f"deep: {len(report.considered)} considered, {verb} {len(report.promoted)}")
        for item in report.promoted:
            click.echo(f"  + {item.text}")
        if report.aborted:
            click.echo(f"aborted: {report.aborted}")
    if not dry_run:
        click.echo(f"report written to {home.root / 'DREAMS.md'}")
        if report.commit:
            click.echo(f"recorded as commit {report.commit}")
