"""``kenning home …`` and ``kenning config …``: where things live and how they are set."""

from __future__ import annotations

import json

import click

from kenning.cli.context import CliState, echo_json, pass_state
from kenning.cli.doctor_cmd import doctor_command

CONFIG_TEMPLATE = """\
# Kenning settings. Precedence: --set on the command line > KENNING_<SECTION>__<KEY>
# environment variables > this file > defaults. `kenning config show` prints the result.

[model]
# The model every command uses unless --model says otherwise; `kenning setup`
# finds the servers running here and writes this section for you.
# default = "ollama:qwen3"          # or openai:gpt-4.1-mini, anthropic:claude-sonnet-4-5
# base_url = "http://localhost:8080/v1"  # any OpenAI-compatible server (then: default = "MODEL")
# api_key_env = ""                  # the NAME of the variable holding the key (keys never go here)
# context_window = 0                # 0: asked of a local server, else known per model

[memory]
# memory_budget = 2200   # characters in memories/MEMORY.md
# user_budget = 1375     # characters in memories/USER.md

[history]
# enabled = true         # commit every write to the home's git history

[rules]
# max_file_chars = 20000 # cap per SOUL.md / AGENTS.md / CLAUDE.md file

[sync]
# remote = ""            # git remote of `kenning sync` (`--remote URL` sets one per machine)
# schedule = ""          # e.g. "every 15m": `kenning daemon` syncs on its own
"""


@click.group("home")
def home_group() -> None:
    """The Kenning home: the folder that holds memory, skills and the archive."""


@home_group.command("path")
@pass_state
def home_path(state: CliState) -> None:
    """Print the home directory (KENNING_HOME / --profile aware)."""
    click.echo(str(state.home().root))


@home_group.command("init")
@pass_state
def home_init(state: CliState) -> None:
    """Create the home, its folders, a commented config.toml and its git history."""
    home = state.home()
    layout = home.layout
    for directory in (layout.memories_dir, layout.journal_dir, layout.skills_dir):
        directory.mkdir(parents=True, exist_ok=True)
    created = []
    for path in (layout.memory_file, layout.user_file):
        if not path.exists():
            path.touch()
            created.append(path)
    if not layout.config_file.exists():
        layout.config_file.write_text(CONFIG_TEMPLATE, encoding="utf-8")
        created.append(layout.config_file)
    commit = home.history.record(created, "initialise home layout") if created else None
    click.echo(f"Home ready at {home.root}" + (f" (commit {commit})" if commit else ""))


# `kenning home check` is `kenning doctor` under the noun it checks.
home_group.add_command(doctor_command, "check")


@click.group("config")
def config_group() -> None:
    """Settings from config.toml, the environment and --set."""


@config_group.command("show")
@click.option("--json", "as_json", is_flag=True, help="Print values and sources as JSON.")
@pass_state
def config_show(state: CliState, as_json: bool) -> None:
    """Print the effective settings and where each value came from."""
    cfg = state.home().config
    values = cfg.as_dict()
    if as_json:
        echo_json({"values": values, "sources": dict(cfg.sources)})
        return
    for section, entries in values.items():
        click.echo(f"[{section}]")
        for key, value in entries.items():
            source = cfg.sources.get(f"{section}.{key}", "default")
            click.echo(f"{key} = {_toml(value)}".ljust(31) + f" # {source}")
        click.echo()


def _toml(value: object) -> str:
    """``value`` as TOML writes it: JSON is TOML for str, int, float, bool and their lists;
    a table (``memory.provider_options``) is written inline."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{key} = {_toml(item)}" for key, item in value.items()) + "}"
    return json.dumps(value)


@config_group.command("path")
@pass_state
def config_path(state: CliState) -> None:
    """Print the path of config.toml (it may not exist yet)."""
    click.echo(str(state.home().layout.config_file))
