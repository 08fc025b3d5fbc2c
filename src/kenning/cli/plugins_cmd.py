"""``kenning plugins``: the installed plugins, what each registered, and what went wrong.

Listing loads every plugin and asks each place that offers plugin additions
(models, tools, embedders, importers, memory providers, commands) which names it takes, so
clashes with built-ins show here, not only when first used. A failed plugin
is listed with its errors; the command still exits 0 (Kenning runs without it).
"""

from __future__ import annotations

import click

from kenning import plugins
from kenning.cli.context import CliState, echo_json, pass_state

_LABELS = {
    "models": "model prefixes",
    "tools": "tools",
    "embedders": "embedders",
    "importers": "import formats",
    "memory_providers": "memory providers",
    "commands": "commands",
}


@click.command("plugins")
@click.option("--json", "as_json", is_flag=True, help="Print the plugins as JSON.")
@pass_state
def plugins_command(state: CliState, as_json: bool) -> None:
    """List installed plugins (entry points in the group "kenning") and what each added."""
    found = plugins.registry()
    _check_clashes(state)
    if as_json:
        echo_json(plugins.describe(found))
        return
    if not found.plugins:
        click.echo(
            'No plugins installed. A plugin is a package with an entry point in the group "kenning"'
            ' (README, "Plugins").'
        )
        return
    for info in found.plugins:
        status = "" if info.ok else "  [failed]"
        click.echo(f"{info.name}  {info.distribution} {info.version}  ({info.entry_point}){status}")
        for kind, names in info.registered.items():
            if names:
                click.echo(f"  {_LABELS[kind]}: {', '.join(names)}")
        for clash in info.clashes:
            click.echo(f"  clash: {clash}")
        for error in info.errors:
            click.echo(f"  error: {error}")


def _check_clashes(state: CliState) -> None:
    """Offer every kind to its consumer once, which records the clashes with built-ins."""
    from kenning.archive.importers import plugin_formats
    from kenning.cli import plugin_commands
    from kenning.embed import plugin_embedders
    from kenning.models.registry import plugin_factories
    from kenning.providers.manager import available
    from kenning.runtime.factory import build_tools

    plugin_factories()
    available()
    plugin_embedders()
    plugin_formats()
    plugin_commands()
    build_tools(state.home()).close()
