"""``kenning rules …``: which identity and standing-rule files apply here."""

from __future__ import annotations

from pathlib import Path

import click

from kenning.cli.context import CliState, echo_json, pass_state
from kenning.prompt.rules import load_rules, render_rules


@click.group()
def rules() -> None:
    """Identity (SOUL.md) and standing rules (AGENTS.md / CLAUDE.md)."""


@rules.command("show")
@click.option(
    "--cwd",
    type=click.Path(file_okay=False, exists=True, path_type=Path),
    default=".",
    help="Working directory to resolve the project chain from.",
)
@click.option("--json", "as_json", is_flag=True, help="List the files as JSON.")
@click.option("--render", "as_prompt", is_flag=True, help="Print the prompt section itself.")
@pass_state
def show(state: CliState, cwd: Path, as_json: bool, as_prompt: bool) -> None:
    """List the rule files a session started in CWD would load, most general first."""
    home = state.home()
    loaded = load_rules(home.layout, cwd, max_file_chars=home.config.rules.max_file_chars)
    if as_prompt:
        click.echo(render_rules(loaded))
        return
    if as_json:
        echo_json(
            [
                {
                    "path": str(rule.path),
                    "scope": rule.scope,
                    "chars": len(rule.text),
                    "truncated": rule.truncated,
                    "blocked_paragraphs": rule.blocked_paragraphs,
                }
                for rule in loaded
            ]
        )
        return
    if not loaded:
        click.echo("No SOUL.md, AGENTS.md or CLAUDE.md applies here.")
    for rule in loaded:
        flags = []
        if rule.truncated:
            flags.append("cut to size")
        if rule.blocked_paragraphs:
            flags.append(f"{rule.blocked_paragraphs} paragraph(s) blocked")
        extra = f"  ({', '.join(flags)})" if flags else ""
        click.echo(f"{rule.scope:<10} {len(rule.text):>7,} chars  {rule.path}{extra}")
