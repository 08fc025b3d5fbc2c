"""``kenning search`` and ``kenning index …``: find anything, keep the index current."""

from __future__ import annotations

import sys
from datetime import UTC, datetime
from typing import Any

import click

from kenning.cli.context import CliState, echo_json, pass_state
from kenning.storage.query import SCOPES, SearchFilters


@click.command("search")
@click.argument("query")
@click.option("--limit", "-n", default=10, show_default=True, help="How many results.")
@click.option(
    "--kind",
    type=click.Choice(list(SCOPES)),
    default="all",
    show_default=True,
    help="Search past messages, memory files, or both.",
)
@click.option("--source", "sources", multiple=True, help="Only sessions of this source.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@pass_state
def search(
    state: CliState, query: str, limit: int, kind: str, sources: tuple[str, ...], as_json: bool
) -> None:
    """Search everything: past sessions and the memory files (hybrid, any language)."""
    result = state.home().search.search(
        query, kinds=SCOPES[kind], limit=limit, filters=SearchFilters(sources=sources)
    )
    if as_json:
        echo_json(result.to_dict())
        return
    for note in result.notes:
        click.secho(f"note: {note}", fg="yellow", err=True)
    if not result.hits:
        click.echo("No matches.")
        return
    for number, hit in enumerate(result.hits, 1):
        if hit.kind == "message":
            when = datetime.fromtimestamp(hit.created_at or 0, UTC).strftime("%Y-%m-%d %H:%M")
            who = hit.speaker or hit.role
            where = f"session {hit.session_id} #{hit.seq}  {when}  {who}"
            text = hit.content or ""
        else:
            where = f"{hit.path}:{hit.line_start}-{hit.line_end}"
            text = hit.text or ""
        if hit.superseded_by is not None:
            where += f"  (superseded by message {hit.superseded_by}, said later)"
        click.echo(f"{number:>2}. [{hit.score:.3f}] {where}")
        click.echo(f"    {' '.join(text.split())[:200]}")
    click.echo(f"({result.mode} search{_time_text(result.time)})", err=True)


def _time_text(time: dict[str, Any] | None) -> str:
    """ "; time: 2024-03-01 to 2024-04-01 preferred ("March 2024")" — why the order changed."""
    if not time:
        return ""
    since, until = str(time.get("since", ""))[:10], str(time.get("until", ""))[:10]
    what = {
        "recent": "newest first",
        "before": f"before {until} preferred",
        "after": f"from {since} on preferred",
    }.get(str(time["intent"]))
    if what is None:  # a range, open on either side
        what = f"{since or '…'} to {until or '…'} preferred"
    if not time.get("applied"):
        what += ", but nothing relevant lies there: ranked as usual"
    return f"; time: {what} ({time['phrase']!r})"


@click.group("index")
def index() -> None:
    """The search index: full-text rows, embeddings and memory-file chunks."""


@index.command("status")
@click.option("--json", "as_json", is_flag=True, help="Print the counts as JSON.")
@pass_state
def status(state: CliState, as_json: bool) -> None:
    """Show how many messages still lack a full-text row or an embedding."""
    home = state.home()
    missing_fts, missing_vectors = home.search.pending()
    embedder = home.embedder
    identity = embedder.identity.key() if embedder is not None else "none (keyword only)"
    data = {"missing_fts": missing_fts, "missing_vectors": missing_vectors, "embedder": identity}
    if as_json:
        echo_json(data)
        return
    click.echo(f"embedder         {identity}")
    click.echo(f"missing fts      {missing_fts:,}")
    click.echo(f"missing vectors  {missing_vectors:,}")


@index.command("update")
@pass_state
def update(state: CliState) -> None:
    """Index whatever is missing: new messages, changed memory files, new embeddings."""
    _run(state, rebuild=False)


@index.command("rebuild")
@pass_state
def rebuild(state: CliState) -> None:
    """Drop and rebuild the index (e.g. after changing the embedding model)."""
    _run(state, rebuild=True)


def _run(state: CliState, *, rebuild: bool) -> None:
    engine = state.home().search
    _, missing = engine.pending()
    if rebuild:  # everything is embedded again, not just what is pending now
        missing = engine.storage.sessions.count_messages(include_system=False)
    with click.progressbar(length=max(missing, 1), label="embedding", file=sys.stderr) as bar:
        action = engine.rebuild if rebuild else engine.index_pending
        report = action(progress=bar.update)
    click.echo(
        f"full-text rows {report.fts_rows:,} · messages embedded {report.messages_embedded:,} · "
        f"chunks written {report.chunks_written:,} · chunks embedded {report.chunks_embedded:,}"
    )
    for note in report.notes:
        click.secho(f"note: {note}", fg="yellow")
