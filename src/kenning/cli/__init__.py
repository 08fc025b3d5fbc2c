"""The ``kenning`` command line: one group per noun, the docstring is the help.

Global options (before the noun) choose the home and override settings:
``kenning --profile work --set memory.user_budget=2000 memory show``.
"""

from __future__ import annotations

import importlib
import logging

import click

from kenning import __version__, clock
from kenning.cli.context import CliState
from kenning.cli.textargs import guard, robust_output

# name -> "module:attribute". Commands are imported when used, not at start:
# the chat UI, the agent, the MCP SDK and numpy-heavy search are a second of
# imports that `kenning memory show` (or a host launching `kenning mcp`)
# should not pay for the others.
LAZY_COMMANDS: dict[str, str] = {
    "chat": "kenning.cli.chat_cmd:chat_command",
    "run": "kenning.cli.run_cmd:run_command",
    "home": "kenning.cli.home_cmd:home_group",
    "config": "kenning.cli.home_cmd:config_group",
    "memory": "kenning.cli.memory_cmd:memory",
    "journal": "kenning.cli.journal_cmd:journal",
    "sessions": "kenning.cli.sessions_cmd:sessions",
    "search": "kenning.cli.search_cmd:search",
    "index": "kenning.cli.search_cmd:index",
    "rules": "kenning.cli.rules_cmd:rules",
    "mcp": "kenning.cli.mcp_cmd:mcp",
    "skills": "kenning.cli.skills_cmd:skills",
    "bench": "kenning.cli.bench_cmd:bench",
    "eval": "kenning.cli.eval_cmd:eval_command",
    "review": "kenning.cli.review_cmd:review_command",
    "dream": "kenning.cli.dream_cmd:dream_command",
    "cron": "kenning.cli.cron_cmd:cron",
    "daemon": "kenning.cli.cron_cmd:daemon_command",
    "doctor": "kenning.cli.doctor_cmd:doctor_command",
    "setup": "kenning.cli.setup_cmd:setup_command",
    "plugins": "kenning.cli.plugins_cmd:plugins_command",
    "storage": "kenning.cli.storage_cmd:storage",
    "sync": "kenning.cli.sync_cmd:sync_command",
    "hosts": "kenning.cli.hosts_cmd:hosts",
    "ui": "kenning.cli.ui_cmd:ui_command",
}


def plugin_commands() -> dict[str, click.Command]:
    """The commands installed plugins add; a built-in's name stays the built-in's."""
    from kenning import plugins

    return plugins.registry().accepted("commands", LAZY_COMMANDS)


class LazyGroup(click.Group):
    """A group whose subcommands are imported on first use (click's documented pattern).

    Plugins' commands (``register_commands``) are looked up only for a name
    that is not built in, and for the list in ``--help``.
    """

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *LAZY_COMMANDS, *plugin_commands()})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in LAZY_COMMANDS and cmd_name not in self.commands:
            command = plugin_commands().get(cmd_name)
            if command is not None:
                self.add_command(guard(command), cmd_name)
        elif cmd_name in LAZY_COMMANDS and cmd_name not in self.commands:
            module_name, _, attr = LAZY_COMMANDS[cmd_name].partition(":")
            command = getattr(importlib.import_module(module_name), attr)
            if not isinstance(command, click.Command) or command.name != cmd_name:
                raise RuntimeError(f"{LAZY_COMMANDS[cmd_name]} is not the {cmd_name!r} command")
            self.add_command(guard(command))
        return super().get_command(ctx, cmd_name)

    def invoke(self, ctx: click.Context) -> object:
        """A storage that cannot be used (server down, wrong password, newer schema) is
        one line saying what to do, from every command: its message, exit 1."""
        try:
            return super().invoke(ctx)
        except click.exceptions.Exit:
            raise  # a RuntimeError too (--help, ctx.exit): no storage was involved
        except RuntimeError as exc:
            from kenning.storage.base import StorageError  # not at start: it imports numpy

            if isinstance(exc, StorageError):
                raise click.ClickException(str(exc)) from exc
            raise


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="kenning")
@click.option(
    "--profile",
    metavar="NAME",
    envvar="KENNING_PROFILE",
    help="Use the named profile's home (default: KENNING_PROFILE, else the default home).",
)
@click.option(
    "--set",
    "assignments",
    multiple=True,
    metavar="SECTION.KEY=VALUE",
    help="Override a setting for this command, e.g. --set memory.user_budget=2000.",
)
@click.pass_context
def cli(ctx: click.Context, profile: str | None, assignments: tuple[str, ...]) -> None:
    """Kenning: an agent runtime with a layered, self-improving memory.

    Everything lives under one home (~/.kenning, or KENNING_HOME), which is a
    git repository: every write is a commit you can log, diff and revert.
    """
    _configure_logging()
    try:
        clock.current()  # an invalid KENNING_NOW is a usage error, said once, here
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    ctx.obj = CliState(profile=profile, assignments=list(assignments))


guard(cli)


def _configure_logging() -> None:
    # Warnings (a plugin skipped, a tool that failed) go to stderr with a prefix.
    logging.basicConfig(format="kenning: warning: %(message)s", level=logging.WARNING)


def main() -> None:
    robust_output()
    _configure_logging()  # before click resolves the command: that may load plugins
    cli()
