"""``kenning doctor``: check the home, one line per check, and the fix for every problem.

Exit codes, for scripts: 0 when every check is ok or only warns, 1 when any
check fails. Nothing is written unless ``--fix`` is given.
"""

from __future__ import annotations

import os
import sys

import click

from kenning import paths
from kenning.cli.context import CliState, echo_json, pass_state
from kenning.config import ConfigError, parse_assignments

_COLOURS = {"ok": "green", "warn": "yellow", "fail": "red"}


@click.command("doctor")
@click.option("--fix", is_flag=True, help="Repair what can be repaired safely, then check again.")
@click.option("--json", "as_json", is_flag=True, help="Print the checks as JSON.")
@click.option("-v", "--verbose", is_flag=True, help="Show the details under each check.")
@pass_state
def doctor_command(state: CliState, fix: bool, as_json: bool, verbose: bool) -> None:
    """Check the home and say exactly what to do about each problem.

    Looks at the home and its git history (git lock files left by a killed
    git, hand edits), the memory files, config.toml, the skills folder, the
    archive (state.db) and its search index. Writes nothing unless --fix is
    given; --fix removes stale git locks and leftovers of interrupted writes
    and puts state.db back in WAL mode.
    """
    from kenning import doctor

    try:
        root = paths.home(state.profile)
        overrides = parse_assignments(state.assignments)
    except (ConfigError, paths.InvalidProfileError) as exc:
        raise click.ClickException(str(exc)) from exc
    cmd = (
        "kenning"
        if state.profile in (None, paths.DEFAULT_PROFILE)
        else (f"kenning --profile {state.profile}")
    )
    fixed = doctor.repair(root) if fix else []
    report = doctor.diagnose(root, environ=os.environ, overrides=overrides, cmd=cmd)
    report.fixed = fixed
    if as_json:
        echo_json(report.to_dict())
    else:
        for line in fixed:
            click.secho(f"fixed {line}", fg="cyan")
        width = max(len(check.name) for check in report.checks) + 2
        for check in report.checks:
            tag = click.style(f"{check.status:<5}", fg=_COLOURS[check.status])
            click.echo(f"{tag} {check.name:<{width}}{check.summary}")
            if check.status != "ok" or verbose:
                for detail in check.details:
                    click.echo(f"{'':6}{'':<{width}}· {detail}")
            if check.fix:
                click.echo(f"{'':6}{'':<{width}}fix: {check.fix}")
        counts = {status: report.count(status) for status in ("ok", "warn", "fail")}
        click.echo(f"{counts['ok']} ok, {counts['warn']} warning(s), {counts['fail']} failure(s).")
    sys.exit(1 if report.failed else 0)
