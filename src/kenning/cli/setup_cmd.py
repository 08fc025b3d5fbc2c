"""``kenning setup``: find a model this machine can use, save it as ``[model]``, try it.

Looks for Ollama (11434), llama.cpp (8080), LM Studio (1234) and vLLM (8000)
on loopback — or only at the ``--url`` given — and for hosted providers'
keys in the environment; lists the models found; writes the chosen one into
config.toml's ``[model]`` (the rest of the file is kept as it is); sends one
short request so a wrong choice shows now, not in the middle of a chat.
"""

from __future__ import annotations

import asyncio
import os

import click

from kenning.cli.context import CliState, pass_state
from kenning.config import ConfigError, ModelConfig
from kenning.config.edit import set_values
from kenning.models.discover import Candidate, candidates, find_servers
from kenning.models.errors import ModelError, ModelNotConfigured
from kenning.models.local import LOCAL_SERVERS
from kenning.models.registry import resolve_model
from kenning.models.types import ChatMessage, ModelSettings


def _nothing_found() -> str:
    starts = "\n".join(f"  {s.label:<10} {s.start}" for s in LOCAL_SERVERS)
    return (
        "no model found: no server answers on the usual local ports and no API key is set.\n"
        f"Start a local server:\n{starts}\n"
        "or set a key (export OPENAI_API_KEY=…, ANTHROPIC_API_KEY=…), then run "
        "`kenning setup` again; a server elsewhere: `kenning setup --url http://HOST:PORT/v1`."
    )


def _choose(found: list[Candidate], model: str | None, yes: bool) -> Candidate:
    if model:
        named = next((c for c in found if model in (c.spec, c.spec.partition(":")[2])), None)
        return named or Candidate(model, "as given")
    if not found:
        raise click.ClickException(_nothing_found())
    click.echo("Models found:")
    for number, candidate in enumerate(found, 1):
        click.echo(f"  {number:>2}. {candidate.spec:<40} {candidate.where}")
    if yes or len(found) == 1:
        return found[0]
    number = click.prompt("Use which?", type=click.IntRange(1, len(found)), default=1)
    return found[number - 1]


async def _try(choice: Candidate) -> str:
    config = ModelConfig(default=choice.spec, base_url=choice.base_url, max_retries=0)
    model = resolve_model(choice.spec, config)
    answer = await model.request(
        [ChatMessage.user("Reply with the single word: ready")],
        settings=ModelSettings(max_output_tokens=64),
    )
    text = " ".join(answer.message.content.split())
    return text[:80] or "(a tool call)"


@click.command("setup")
@click.option(
    "--url",
    "urls",
    multiple=True,
    metavar="URL",
    help="Look only here (an OpenAI-compatible base URL, e.g. http://host:8080/v1); repeatable.",
)
@click.option("--model", "-m", metavar="MODEL", help="Save this model without asking.")
@click.option("--yes", "-y", is_flag=True, help="Take the first model found without asking.")
@click.option("--no-test", is_flag=True, help="Do not send the test request.")
@pass_state
def setup_command(
    state: CliState, urls: tuple[str, ...], model: str | None, yes: bool, no_test: bool
) -> None:
    """Find a model, save it in config.toml, and check that it answers.

    \b
    Examples:
      kenning setup
      kenning setup --url http://192.168.1.20:11434/v1
      kenning setup --model anthropic:claude-sonnet-4-5
    """
    home = state.home()
    servers = find_servers(urls)
    found = candidates(servers, {} if urls else os.environ)
    choice = _choose(found, model, yes)
    path = home.layout.config_file
    try:
        set_values(path, "model", {"default": choice.spec, "base_url": choice.base_url})
    except (ConfigError, OSError) as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(f"saved [model] default = {choice.spec!r} in {path}")
    if os.environ.get("KENNING_MODEL__DEFAULT"):
        click.echo("note: KENNING_MODEL__DEFAULT is set and wins over config.toml; unset it")
    if no_test:
        return
    click.echo(f"asking {choice.spec} for one short answer…")
    try:
        said = asyncio.run(_try(choice))
    except (ModelError, ModelNotConfigured) as exc:
        raise click.ClickException(
            f"saved, but the test request failed: {exc}\n"
            "fix that and run `kenning doctor`, or choose another: `kenning setup`"
        ) from exc
    click.echo(f"it answers: {said}")
    click.echo("ready: `kenning chat`")
