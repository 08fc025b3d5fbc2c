"""``kenning sessions …``: the archive of past sessions.

Human output goes to stdout, the import progress bar to stderr, so ``--json``
output stays parseable. An import skips damaged parts (a transcript line, a
conversation) and lists them after the summary: the first ``SHOWN_PROBLEMS``
with file:line and reason, then how many more (``--json`` carries them all).
Times are shown in UTC (imported sources such as LoCoMo carry no zone). A
missing session id exits 1 and points at ``list``.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import click

from kenning.archive.importers import (
    ImportFormatError,
    ImportReport,
    JsonlReport,
    format_names,
    read_source,
    store_parsed,
)
from kenning.archive.importers.common import ParsedImport
from kenning.archive.store import SOURCES, Archive, Message, Session
from kenning.cli.context import CliState, echo_json, pass_state

SHOWN_PROBLEMS = 10


@click.group()
def sessions() -> None:
    """The archive: every session and message, imported or lived."""


class FormatChoice(click.Choice[str]):
    """The import formats, built-in and from plugins, read when first needed.

    Plugins load only when the format is checked or listed, not when the
    ``sessions`` group is imported (``kenning sessions list`` loads none).
    """

    def __init__(self) -> None:
        super().__init__(())

    @property
    def choices(self) -> tuple[str, ...]:
        return tuple(format_names())

    @choices.setter
    def choices(self, value: object) -> None:
        pass  # click.Choice.__init__ assigns it; the names are always computed


@sessions.command("import")
@click.argument("fmt", metavar="FORMAT", type=FormatChoice())
@click.argument("path", type=click.Path(exists=True, path_type=Path))
@click.option(
    "--sample",
    "samples",
    multiple=True,
    metavar="ID",
    help="locomo only: import just this conversation (repeatable), e.g. --sample conv-26.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
@pass_state
def import_cmd(
    state: CliState, fmt: str, path: Path, samples: tuple[str, ...], as_json: bool
) -> None:
    """Import the transcripts in PATH, written in FORMAT, into the archive.

    \b
    locomo       the LoCoMo benchmark JSON (one session per conversation session)
    openai       chat-format JSON/JSONL ({"messages": [...]}) or ChatGPT's conversations.json
    chatgpt      the same as openai
    claude-code  a Claude Code transcript .jsonl, or a folder of them
                 (e.g. ~/.claude/projects/<project>/)
    jsonl        one message a line: {"session_id", "role", "content",
                 "timestamp" (ISO-8601), "session_title"?, "meta"?}
    Installed plugins may add formats (`kenning plugins` lists them).

    Importing the same sessions again adds nothing: each is keyed by its content
    (jsonl: by session_id, and new lines of a known session are appended).
    """
    if samples and fmt != "locomo":
        raise click.UsageError("--sample only applies to the locomo format")
    if fmt != "claude-code" and path.is_dir():
        raise click.UsageError(f"{path} is a folder; the {fmt} format reads one file")
    try:
        parsed = read_source(fmt, path, samples=samples)
    except ImportFormatError as exc:
        raise click.ClickException(f"cannot import: {exc}; nothing was imported") from exc
    report = _store(state, parsed)
    if as_json:
        echo_json(report.to_dict())
    else:
        _print_report(report)


def _store(state: CliState, parsed: ParsedImport) -> ImportReport:
    archive = state.home().archive
    if len(parsed.sessions) < 2:
        return store_parsed(archive, parsed)
    with click.progressbar(
        length=len(parsed.sessions),
        label=f"Importing {len(parsed.sessions)} sessions",
        file=sys.stderr,  # looked up now: CliRunner swaps it
    ) as bar:
        return store_parsed(archive, parsed, progress=bar.update)


def _print_report(report: ImportReport) -> None:
    if isinstance(report, JsonlReport):  # and HostReport, its kind
        for line in report.describe():
            click.echo(line)
    else:
        click.echo(
            f"Imported {_plural(report.sessions_imported, 'session')} "
            f"({_plural(report.messages_imported, 'message')}); "
            f"skipped {report.sessions_skipped} already in the archive."
        )
        if report.skipped_events:
            left_out = ", ".join(
                f"{n} × {what}" for what, n in sorted(report.skipped_events.items())
            )
            click.echo(f"Left out: {left_out}.")
    if report.problems:
        click.echo(f"Skipped {_plural(len(report.problems), 'damaged part')}:")
        for problem in report.problems[:SHOWN_PROBLEMS]:
            click.echo(f"  {problem}")
        hidden = len(report.problems) - SHOWN_PROBLEMS
        if hidden > 0:
            click.echo(f"  … and {hidden:,} more (--json lists them all)")


@sessions.command("list")
@click.option("--limit", "-n", default=20, show_default=True, help="How many sessions to list.")
@click.option(
    "--source",
    "sources",
    multiple=True,
    type=click.Choice(SOURCES),
    help="Only sessions from this source (repeatable).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the sessions as JSON.")
@pass_state
def list_cmd(state: CliState, limit: int, sources: tuple[str, ...], as_json: bool) -> None:
    """List sessions, newest first: id, start (UTC), source, messages, title."""
    found = state.home().archive.sessions(limit=limit, sources=sources or None)
    if as_json:
        echo_json([dataclasses.asdict(s) for s in found])
        return
    if not found:
        click.echo("No sessions yet. Import some with `kenning sessions import`.")
    for s in found:
        click.echo(
            f"{s.id}  {_when(s.started_at)}  {s.source:<8} {s.message_count:>5} msgs  "
            f"{s.title or '(untitled)'}"
        )


@sessions.command("show")
@click.argument("session_id", metavar="ID", required=False)
@click.option(
    "--host-id",
    metavar="HOST_ID",
    help="Find the session by the id another tool gave it (a Claude Code session id, "
    "a ChatGPT conversation id) instead of by Kenning's ID.",
)
@click.option("--limit", "-n", type=click.IntRange(min=0), help="Show at most this many messages.")
@click.option("--json", "as_json", is_flag=True, help="Print the session and messages as JSON.")
@pass_state
def show_cmd(
    state: CliState, session_id: str | None, host_id: str | None, limit: int | None, as_json: bool
) -> None:
    """Show session ID: its header, then each message in order."""
    archive = state.home().archive
    session_id = _pick_session(archive, session_id, host_id)
    session = archive.session(session_id)
    if session is None:
        raise click.ClickException(
            f"no session {session_id!r} in the archive; see `kenning sessions list`"
        )
    messages = archive.messages(session_id, limit=limit)
    children = archive.children(session_id)
    if as_json:
        echo_json(
            {
                "session": dataclasses.asdict(session),
                "messages": [m.to_dict() for m in messages],
                "children": [dataclasses.asdict(c) for c in children],
            }
        )
        return
    _print_header(session)
    for message in messages:
        _print_message(message)
    hidden = session.message_count - len(messages)
    if hidden > 0:
        click.echo(f"… {_plural(hidden, 'more message')} (raise --limit to see them)")
    if children:
        # Sub-agents and reviews run beside the conversation, so they are listed, not inlined.
        click.echo(f"Sessions started from this one ({len(children)}):")
        for child in children:
            title = child.title or "(untitled)"
            click.echo(f"  {child.id}  {title}  ({_plural(child.message_count, 'message')})")


def _pick_session(archive: Archive, session_id: str | None, host_id: str | None) -> str:
    """Kenning's id of the session to show, given one of the two ids."""
    if (session_id is None) == (host_id is None):
        raise click.UsageError("give a session ID or --host-id HOST_ID (one of the two)")
    if host_id is None:
        assert session_id is not None
        return session_id
    found = archive.sessions_by_host_id(host_id)
    if not found:
        raise click.ClickException(
            f"no session with host id {host_id!r} in the archive; import it with "
            "`kenning sessions import claude-code ~/.claude/projects/<project>/` "
            "or see `kenning sessions list`"
        )
    if len(found) > 1:
        # Imported twice by a Kenning older than host-id keys: the newest is the fullest.
        click.echo(
            f"{len(found)} sessions have host id {host_id!r} ({', '.join(found)}); "
            "showing the newest.",
            err=True,
        )
    return found[-1]


@sessions.command("path")
@pass_state
def path_cmd(state: CliState) -> None:
    """Print the path of the archive database (state.db)."""
    click.echo(str(state.home().layout.state_db))


@sessions.command("compact")
@click.argument("session_id", metavar="ID")
@click.option(
    "--model",
    "-m",
    "model_name",
    default=None,
    help="The model that writes the summary, e.g. openai:gpt-4.1-mini [default: [model] default].",
)
@click.option("--json", "as_json", is_flag=True, help="Print the compaction report as JSON.")
@pass_state
def compact_cmd(state: CliState, session_id: str, model_name: str | None, as_json: bool) -> None:
    """Compact session ID now, as /compact does in `kenning chat`.

    A silent turn first saves what must survive to today's journal; then the
    middle of the conversation becomes a structured summary. The replaced
    messages stay in the archive (flagged, still searchable) and
    `kenning chat --resume ID` goes on from the summary. Writing the summary
    needs a model: --model, or [model] default in config.toml.
    """
    import asyncio

    from kenning.context.engine import compact_now
    from kenning.context.transcript import TranscriptError
    from kenning.models.errors import ModelNotConfigured
    from kenning.providers import ProviderError
    from kenning.runtime.factory import open_session

    home = state.home()
    stored = home.archive.session(session_id)
    if stored is None:
        raise click.ClickException(
            f"no session {session_id!r} in the archive; see `kenning sessions list`"
        )
    workspace = Path(stored.workspace) if stored.workspace else None
    try:
        session = open_session(
            home,
            model=model_name,
            resume=session_id,
            cwd=workspace if workspace is not None and workspace.is_dir() else None,
        )
    except ModelNotConfigured as exc:
        raise click.ClickException(
            f"compacting needs a model to write the summary, and none is set.\n{exc}"
        ) from exc
    except (TranscriptError, ProviderError) as exc:
        raise click.ClickException(str(exc)) from exc
    try:
        report = asyncio.run(compact_now(session))
    finally:
        session.tools.close()
        if session.memory_providers is not None:  # let on_pre_compress run before we exit
            asyncio.run(session.memory_providers.end_session("compacted"))
    if as_json:
        echo_json(report.to_dict())
    else:
        click.echo(report.describe())
    if report.error:
        raise SystemExit(1)


def _print_header(s: Session) -> None:
    click.secho(f"{s.id}  {s.title or '(untitled)'}", bold=True)
    details = [f"source {s.source}", f"started {_when(s.started_at)} UTC"]
    if s.ended_at is not None:
        details.append(f"ended {_when(s.ended_at)} UTC ({s.end_reason or 'no reason'})")
    details.append(_plural(s.message_count, "message"))
    click.echo("  " + ", ".join(details))
    for label, value in (("workspace", s.workspace), ("model", s.model), ("parent", s.parent_id)):
        if value:
            click.echo(f"  {label}: {value}")
    if s.input_tokens or s.output_tokens:
        click.echo(f"  tokens: {s.input_tokens:,} in, {s.output_tokens:,} out")
    if s.meta:
        click.echo("  " + ", ".join(f"{k}: {_short(v, 60)}" for k, v in s.meta.items()))
    click.echo()


def _print_message(m: Message) -> None:
    who = m.role if not m.speaker or m.speaker == m.role else f"{m.role}/{m.speaker}"
    if m.role == "tool":
        who = f"tool {m.tool_name or '?'}" + (f" [{m.tool_call_id}]" if m.tool_call_id else "")
    flags = "" if m.active else " (compacted)"
    click.secho(f"#{m.seq}  {_when(m.created_at)}  {who}{flags}", fg="cyan")
    if m.content:
        click.echo("  " + m.content.replace("\n", "\n  "))
    for call in m.tool_calls or []:
        click.echo(f"  → {_call_summary(call)}")


def _call_summary(call: dict[str, Any]) -> str:
    """``name(args)`` for OpenAI-shaped calls and for ``{"name", "arguments"}`` ones."""
    function = call.get("function")
    if not isinstance(function, dict):
        function = call
    name = function.get("name", "?")
    arguments = function.get("arguments", "")
    if not isinstance(arguments, str):
        arguments = str(arguments)
    return f"{name}({_short(arguments, 100)})"


def _short(value: object, width: int) -> str:
    raw = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    text = " ".join(raw.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _when(stamp: float | None) -> str:
    if stamp is None:
        return "?"
    return datetime.fromtimestamp(stamp, UTC).strftime("%Y-%m-%d %H:%M")


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"
