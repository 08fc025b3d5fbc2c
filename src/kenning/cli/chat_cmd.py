"""``kenning chat``: the interactive REPL (the application is :mod:`kenning.chat.app`)."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import click
from rich.console import Console

from kenning.cli.context import CliState, pass_state
from kenning.cli.run_cmd import EXIT_NOT_CONFIGURED, open_or_explain
from kenning.tools.permissions import MODES, parse_mode


@click.command("chat")
@click.option(
    "--model", "-m", metavar="MODEL", help="provider:model, e.g. anthropic:claude-sonnet-4-5."
)
@click.option("--resume", metavar="SESSION", help="Resume an archived session.")
@click.option("--continue", "continue_last", is_flag=True, help="Resume the latest chat session.")
@click.option(
    "--cwd",
    type=click.Path(file_okay=False, exists=True, path_type=Path),
    help="Working directory for the tools (default: here).",
)
@click.option(
    "--mode",
    type=click.Choice(MODES),
    default="ask",
    show_default=True,
    help="Permissions: ask (edits show a diff and ask, shell asks), auto-edit (edits "
    "applied and shown), plan (read-only tools only), yolo (nothing asks).",
)
@pass_state
def chat_command(
    state: CliState,
    model: str | None,
    resume: str | None,
    continue_last: bool,
    cwd: Path | None,
    mode: str,
) -> None:
    """Talk with the agent in this terminal.

    \b
    Examples:
      kenning chat --model openai:gpt-4.1-mini
      kenning chat --continue
      kenning chat --mode plan
    """
    # Imported here, not at start: `kenning --help` reads every command's help,
    # and the chat application (prompt_toolkit, rich, the agent) is not needed for that.
    from kenning.chat.app import ChatApp

    session = open_or_explain(
        state, model=model, source="cli", cwd=cwd, resume=resume, continue_last=continue_last
    )
    app = ChatApp(state.home(), session, Console(highlight=False), parse_mode(mode))
    try:
        asyncio.run(app.main())
    except KeyboardInterrupt:
        sys.exit(130)


__all__ = ["EXIT_NOT_CONFIGURED", "chat_command"]
