"""``kenning review``: review a session now, in the foreground, with the configured model.

The same review the background runs after enough turns: what the user
corrected or prefers goes to USER.md, durable facts to MEMORY.md, working
methods to skills — all of it as one commit, or nothing. Exit codes: 0 done
(including "nothing to save"), 1 the review failed or another one is running,
2 no model configured.
"""

from __future__ import annotations

import asyncio
import sys

import click

from kenning.cli.context import CliState, echo_json, pass_state
from kenning.learning.background import (
    CONVERSATIONS,
    load_state,
    review_locked,
    reviewable,
)
from kenning.learning.review import KINDS, describe, take_snapshot
from kenning.models.errors import ModelError, ModelNotConfigured
from kenning.models.registry import resolve_model


@click.command("review")
@click.argument("session_id", required=False)
@click.option("--last", is_flag=True, help="Review the most recent interactive session.")
@click.option(
    "--all", "whole", is_flag=True, help="Review every message, not only the unreviewed ones."
)
@click.option(
    "--kind",
    type=click.Choice(["memory", "skills", "both"]),
    default="both",
    show_default=True,
    help="What to look for.",
)
@click.option("--model", "-m", metavar="MODEL", help="Model (default: review.model, then [model]).")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@pass_state
def review_command(
    state: CliState,
    session_id: str | None,
    last: bool,
    whole: bool,
    kind: str,
    model: str | None,
    as_json: bool,
) -> None:
    """Review SESSION_ID (or --last) now and keep what will help next time.

    Corrections and preferences go to USER.md, durable facts to MEMORY.md,
    working methods to skills; everything lands as one commit or nothing
    does. Only messages not yet reviewed are read, unless --all.

    \b
    Examples:
      kenning review --last
      kenning review 20261130-141503-9f2c4a --kind memory --json
    """
    home = state.home()
    if bool(session_id) == last:
        raise click.UsageError("give a SESSION_ID or --last (not both)")
    if last:
        found = home.archive.sessions(limit=1, sources=CONVERSATIONS)
        if not found:
            raise click.ClickException(
                "no conversation to review yet (--last looks at `kenning chat` and "
                "`kenning run` sessions; give a SESSION_ID for another)"
            )
        session_id = found[0].id
    assert session_id is not None
    session = home.archive.session(session_id)
    if session is None:
        raise click.ClickException(f"no session {session_id!r}; `kenning sessions list` shows them")
    if not reviewable(session.source, session.meta):
        raise click.ClickException(
            f"session {session_id} is an automated session ({session.source}); "
            "reviews look at conversations with people"
        )
    kinds = KINDS if kind == "both" else (kind,)
    review_state = load_state(home.archive, session_id)
    after = 0 if whole else review_state.cursor(kinds)
    snapshot = take_snapshot(home.archive, session_id, after)
    if snapshot.empty:  # no model needed to say so
        click.echo(f"nothing new to review in session {session_id} (--all reviews everything)")
        return
    try:
        spec = model or home.config.review.model or None
        chosen = resolve_model(spec, home.config.model, config_path=home.layout.config_file)
    except ModelNotConfigured as exc:
        click.echo(f"kenning: {exc}", err=True)
        sys.exit(2)
    except (ModelError, ValueError) as exc:
        raise click.ClickException(str(exc)) from exc
    report = asyncio.run(review_locked(home, snapshot, kinds, chosen, state=review_state))
    if as_json:
        echo_json(report.to_dict())
    else:
        click.echo(describe(report))
        for change in report.memory:
            for line in change.changes:
                click.echo(f"  {change.target.filename}: {line}")
        if report.commit:
            click.echo(
                f"recorded as commit {report.commit} (review session {report.review_session_id})"
            )
    if not report.ok:
        sys.exit(1)
