"""The ``kenning`` command line: one group per noun, the docstring is the help.

Global options (before the noun) choose the home and override settings:
``kenning --profile work --set memory.user_budget=2000 memory show``.
"""

from __future__ import annotations

import logging

import click

from kenning import __version__
from kenning.cli.bench_cmd import bench
from kenning.cli.chat_cmd import chat_command
from kenning.cli.context import CliState
from kenning.cli.cron_cmd import cron, daemon_command
from kenning.cli.dream_cmd import dream_command
from kenning.cli.home_cmd import config_group, home_group
from kenning.cli.journal_cmd import journal
from kenning.cli.mcp_cmd import mcp
from kenning.cli.memory_cmd import memory
from kenning.cli.review_cmd import review_command
from kenning.cli.rules_cmd import rules
from kenning.cli.run_cmd import run_command
from kenning.cli.search_cmd import index, search
from kenning.cli.sessions_cmd import sessions
from kenning.cli.skills_cmd import skills


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
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
    logging.basicConfig(format="kenning: warning: %(message)s", level=logging.WARNING)
    ctx.obj = CliState(profile=profile, assignments=list(assignments))


cli.add_command(chat_command)
cli.add_command(run_command)
cli.add_command(home_group)
cli.add_command(config_group)
cli.add_command(memory)
cli.add_command(journal)
cli.add_command(sessions)
cli.add_command(search)
cli.add_command(index)
cli.add_command(rules)
cli.add_command(mcp)
cli.add_command(skills)
cli.add_command(bench)
cli.add_command(review_command)
cli.add_command(dream_command)
cli.add_command(cron)
cli.add_command(daemon_command)


def main() -> None:
    cli()
