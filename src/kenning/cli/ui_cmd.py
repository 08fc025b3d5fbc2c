"""``kenning ui``: serve a local web app onto this home and open it in the browser."""

from __future__ import annotations

import contextlib
import webbrowser

import click

from kenning.cli.context import CliState, pass_state

HOST = "127.0.0.1"  # loopback only: there is no option to serve anywhere else


@click.command("ui")
@click.option("--port", default=0, show_default=True, help="The port (0 picks a free one).")
@click.option("--no-open", is_flag=True, help="Print the URL; do not open a browser.")
@click.option("--read-only", is_flag=True, help="Serve the views only: every change is refused.")
@pass_state
def ui_command(state: CliState, port: int, no_open: bool, read_only: bool) -> None:
    """Look at this home in the browser: hot memory, history, sessions, skills, dreaming.

    Serves on 127.0.0.1 only. The URL it prints carries a secret made for this
    run; without it every request is refused (403), so other local users and
    web pages cannot read or change memory. Ctrl-C stops it.
    """
    from kenning.mcp.server import bind
    from kenning.ui.app import Ui, serve
    from kenning.ui.security import Guard

    home = state.home()
    try:
        sock = bind(HOST, port)
    except OSError as exc:
        raise click.ClickException(
            f"cannot listen on {HOST}:{port}: {exc}. Choose another --port, or leave it out "
            "to pick a free one."
        ) from exc
    guard = Guard(HOST, sock.getsockname()[1], read_only=read_only)
    ui = Ui(home, guard, profile=state.profile)

    def ready(url: str) -> None:
        mode = " (read-only)" if read_only else ""
        click.echo(f"kenning ui: serving {home.root}{mode} at {url}", err=True)
        click.echo("Open that link (it carries this run's secret); Ctrl-C stops.", err=True)
        click.echo(url)  # alone on stdout, for scripts
        if not no_open:
            with contextlib.suppress(webbrowser.Error):
                webbrowser.open(url)

    with contextlib.suppress(KeyboardInterrupt):
        serve(ui, sock, ready=ready)
