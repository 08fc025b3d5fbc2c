"""``kenning mcp``: serve this home over MCP (stdio or HTTP), and print host configuration."""

from __future__ import annotations

import contextlib
import os
import sys
from functools import partial
from pathlib import Path

import click

from kenning.cli.context import CliState

DEFAULT_PORT = 8765


def _origins(ctx: click.Context, param: click.Parameter, value: tuple[str, ...]) -> list[str]:
    if not value:
        return []
    from kenning.mcp.server import OriginError, origin_of

    try:
        return [origin_of(url) for url in value]
    except OriginError as exc:
        raise click.BadParameter(str(exc), ctx, param) from exc


def _say(text: str) -> None:
    # stdout is the protocol under stdio; everything human goes to stderr.
    click.echo(text, err=True)


@click.group("mcp", invoke_without_command=True)
@click.option("--http", "use_http", is_flag=True, help="Serve streamable HTTP instead of stdio.")
@click.option("--host", default="127.0.0.1", show_default=True, help="HTTP: the address to bind.")
@click.option(
    "--port",
    default=DEFAULT_PORT,
    show_default=True,
    type=click.IntRange(0, 65535),
    help="HTTP: the port (0 picks a free one).",
)
@click.option(
    "--allow-remote",
    is_flag=True,
    help="HTTP: allow binding a non-loopback address (no authentication: anyone who can "
    "reach it can read and change the memory).",
)
@click.option(
    "--allow-origin",
    "allow_origins",
    multiple=True,
    metavar="URL",
    callback=_origins,
    help="HTTP: also accept browser requests from this origin (scheme://host[:port]); "
    "repeatable. By default only the server's own origin is accepted.",
)
@click.option("--read-only", is_flag=True, help="Serve search and views; refuse every write.")
@click.pass_context
def mcp(
    ctx: click.Context,
    use_http: bool,
    host: str,
    port: int,
    allow_remote: bool,
    allow_origins: list[str],
    read_only: bool,
) -> None:
    """Serve this home's memory, archive, journal and skills to agent hosts over MCP.

    With no options it speaks MCP on stdin/stdout: what Claude Code, Cursor
    and other desktop hosts launch (`kenning mcp config <host>` prints how to
    register it). Logs go to stderr. Everything a client does is recorded in
    the archive as a session of source `mcp`, except with --read-only, which
    writes nothing at all.
    """
    if ctx.invoked_subcommand is not None:
        return
    state = ctx.find_object(CliState)
    assert state is not None
    home = state.home()

    import anyio

    from kenning.mcp.server import bind, is_loopback, serve_http, serve_stdio
    from kenning.mcp.service import KenningService

    mode = "read-only" if read_only else "read-write"
    if not use_http:
        if sys.stdin.isatty():
            _say(
                "kenning mcp speaks MCP on stdin/stdout and is meant to be started by an agent "
                "host; `kenning mcp config claude-code|cursor|codex|json` shows how. "
                "Ctrl-C stops it."
            )
        _say(f"kenning mcp: serving {home.root} over stdio ({mode})")
        service = KenningService(
            home, read_only=read_only, transport="stdio", workspace=os.getcwd()
        )
        anyio.run(serve_stdio, service)
        return
    if not is_loopback(host):
        if allow_origins:
            raise click.UsageError(
                "--allow-origin needs a loopback --host: off loopback, Host and Origin "
                "headers are not checked at all."
            )
        if not allow_remote:
            raise click.UsageError(
                f"--host {host} would expose this home's memory to the network without "
                "authentication. Pass --allow-remote if that is what you want."
            )
        _say(
            f"warning: serving Kenning's memory on {host} without authentication: anyone who "
            "can reach this address can read it"
            + ("." if read_only else " and change it (consider --read-only).")
        )
    try:
        sock = bind(host, port)
    except OSError as exc:
        raise click.ClickException(f"cannot listen on {host}:{port}: {exc}") from exc
    _say(f"kenning mcp: serving {home.root} ({mode})")
    service = KenningService(home, read_only=read_only, transport="http")
    with contextlib.suppress(KeyboardInterrupt):  # uvicorn has already shut down cleanly
        anyio.run(partial(serve_http, service, sock, allow_origins=allow_origins))


@mcp.command("config")
@click.argument("host", type=click.Choice(["claude-code", "cursor", "codex", "json"]))
@click.option("--read-only", is_flag=True, help="Register the server in read-only mode.")
@click.pass_context
def config_command(ctx: click.Context, host: str, read_only: bool) -> None:
    """Print the command or snippet that registers this home's server with HOST.

    The printed launch line carries this command's home selection (--profile,
    --set, KENNING_HOME and KENNING_<SECTION>__<KEY> settings) and the absolute
    path of this kenning, so the host starts the same home from any directory.
    """
    from kenning.mcp import hosts

    state = ctx.find_object(CliState)
    assert state is not None
    parent = ctx.parent.params if ctx.parent is not None else {}
    spec = hosts.launch(
        profile=state.profile,
        assignments=state.assignments,
        read_only=read_only or bool(parent.get("read_only")),
    )
    click.echo(hosts.snippet(host, spec))
    _say(hosts.WHERE[host])


@mcp.command("import")
@click.argument("source", type=click.Choice(["claude-code"]))
@click.option(
    "--project",
    type=click.Path(file_okay=False, exists=True, path_type=Path),
    help="The project whose servers to take too (default: here).",
)
@click.option("--dry-run", is_flag=True, help="Show what would be written; write nothing.")
@click.pass_context
def import_command(ctx: click.Context, source: str, project: Path | None, dry_run: bool) -> None:
    """Use the MCP servers Claude Code has as Kenning tools: writes [mcp.servers.NAME].

    Reads Claude Code's user servers and this project's (~/.claude.json and
    .mcp.json). A server already in config.toml is kept as it is. Values
    written inline there (keys, tokens) are not copied: config.toml gets a
    ${VAR} reference and you export the variable.
    """
    from kenning.config import ConfigError
    from kenning.config.edit import set_values
    from kenning.mcp.servers import (
        McpConfigError,
        claude_code_servers,
        configured_servers,
        spec_from,
        toml_values,
        without_secrets,
    )

    state = ctx.find_object(CliState)
    assert state is not None
    home = state.home()
    path = home.layout.config_file
    found, problems = claude_code_servers(Path.home(), (project or Path.cwd()).resolve())
    for problem in problems:
        click.echo(f"skipped: {problem}")
    have = {spec.name for spec in configured_servers(path)[0]}
    if not found:
        click.echo("Claude Code has no MCP servers for this project (and none user-wide).")
        return
    exports: list[str] = []
    for name, (where, raw) in sorted(found.items()):
        if name in have:
            click.echo(f"kept {name}: already in {path}")
            continue
        try:
            spec, needed = without_secrets(spec_from(name, raw, where=where))
        except McpConfigError as exc:
            click.echo(f"skipped: {exc}")
            continue
        exports += needed
        what = spec.url or " ".join([spec.command, *spec.args])
        if dry_run:
            click.echo(f"would add {name} ({spec.transport}: {what}) from {where}")
            continue
        try:
            set_values(path, f"mcp.servers.{name}", toml_values(spec))
        except (ConfigError, OSError) as exc:
            raise click.ClickException(str(exc)) from exc
        click.echo(f"added {name} ({spec.transport}: {what}) from {where}")
    for variable in dict.fromkeys(exports):
        click.echo(f"export {variable}=…   # Claude Code had this value inline")
    if not dry_run:
        click.echo("`kenning chat` offers their tools as mcp__SERVER__TOOL.")
