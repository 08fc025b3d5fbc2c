"""An example Kenning plugin: every hook, each as small as it can be.

- model prefix ``example``: ``example:echo`` calls the ``shout`` tool with the
  task and answers with what it returned; ``example:bad-args`` calls it with
  arguments of the wrong type, ``example:boom`` with ones that make it raise;
- tool ``shout``; embedder ``example-embedder``; import format ``example``
  (one ``role: text`` line per message); command ``example-hello``;
  memory provider ``example-memory`` (listed only).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import click

from kenning.archive.importers.common import ImportedSession, ParsedImport
from kenning.archive.store import Message
from kenning.models.registry import ModelRequest
from kenning.models.types import ChatMessage, Model, ToolSpec
from kenning.testing import FakeEmbedder, FunctionModel, tool_call

_ARGUMENTS: dict[str, Callable[[str], dict[str, Any]]] = {
    "echo": lambda task: {"text": task},
    "bad-args": lambda task: {"text": task, "times": "lots"},
    "boom": lambda task: {"text": task, "times": 99},
}


def shout(text: str, times: int = 1) -> str:
    """Say the text in capitals.

    Args:
        text: What to say.
        times: How many times to say it (at most 5).
    """
    if times > 5:
        raise ValueError(f"{times} times is too loud")
    return " ".join([text.upper()] * times)


def _model(request: ModelRequest) -> Model:
    if request.model not in _ARGUMENTS:
        raise ValueError(f"example models are {', '.join(_ARGUMENTS)}, not {request.model!r}")
    arguments = _ARGUMENTS[request.model]

    def respond(messages: Sequence[ChatMessage], tools: Sequence[ToolSpec], settings: Any) -> Any:
        last = messages[-1]
        if last.role == "tool":
            return f"the tool said: {last.content}"
        return tool_call("shout", **arguments(last.content))

    return FunctionModel(respond, name=request.spec)


def _parse(path: Path) -> ParsedImport:
    messages = []
    for line in path.read_text(encoding="utf-8").splitlines():
        role, _, content = line.partition(":")
        if content.strip():
            messages.append(Message(role.strip(), content.strip()))  # type: ignore[arg-type]
    session = ImportedSession("example", path.name, 1_700_000_000.0, messages, title=path.stem)
    return ParsedImport("example", [str(path)], [session])


def register_models(register: Callable[..., None]) -> None:
    register("example", _model)


def register_tools(register: Callable[..., None]) -> None:
    register(shout)


def register_embedders(register: Callable[..., None]) -> None:
    register("example-embedder", lambda config: FakeEmbedder(name="example/bag-of-words"))


def register_importers(register: Callable[..., None]) -> None:
    register("example", _parse)


def register_memory_providers(register: Callable[..., None]) -> None:
    register("example-memory", object())


def register_commands(cli: click.Group) -> None:
    @cli.command("example-hello")
    @click.argument("name", default="world")
    def hello(name: str) -> None:
        """Greet NAME from the example plugin."""
        click.echo(f"hello {name}, from the example plugin")
