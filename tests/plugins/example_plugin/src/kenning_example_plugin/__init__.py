"""An example Kenning plugin: every hook, each as small as it can be.

- model prefix ``example``: ``example:echo`` calls the ``shout`` tool with the
  task and answers with what it returned; ``example:bad-args`` calls it with
  arguments of the wrong type, ``example:boom`` with ones that make it raise;
- tool ``shout``; embedder ``example-embedder``; import format ``example``
  (one ``role: text`` line per message); command ``example-hello``;
- memory provider ``example-memory``: recalls the ``facts`` of its options
  that share a word with the user's message, and appends each hook it hears
  (``sync_turn``, ``on_memory_write``, ``on_session_end``) as a JSON line to
  the file its ``log`` option names.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import click

from kenning.archive.importers.common import ImportedSession, ParsedImport
from kenning.archive.store import Message
from kenning.models.registry import ModelRequest
from kenning.models.types import ChatMessage, Model, ToolSpec
from kenning.providers import MemoryProvider, MemoryWrite, ProviderSetup
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


class ExampleMemory(MemoryProvider):
    name = "example memory"

    def __init__(self, setup: ProviderSetup) -> None:
        self.facts = [str(fact) for fact in setup.options.get("facts", [])]
        log = setup.options.get("log")
        self.log = Path(log) if log else None

    def prefetch(self, query: str) -> str | None:
        words = set(query.lower().split())
        hits = [fact for fact in self.facts if words & set(fact.lower().split())]
        return "\n".join(hits) or None

    def _record(self, *entry: Any) -> None:
        if self.log is not None:
            with self.log.open("a", encoding="utf-8") as out:
                out.write(json.dumps(entry) + "\n")

    def sync_turn(self, user: str, assistant: str) -> None:
        self._record("sync_turn", user, assistant)

    def on_memory_write(self, write: MemoryWrite) -> None:
        self._record("on_memory_write", write.action, write.target, write.content)

    def on_session_end(self, reason: str) -> None:
        self._record("on_session_end", reason)


def register_models(register: Callable[..., None]) -> None:
    register("example", _model)


def register_tools(register: Callable[..., None]) -> None:
    register(shout)


def register_embedders(register: Callable[..., None]) -> None:
    register("example-embedder", lambda config: FakeEmbedder(name="example/bag-of-words"))


def register_importers(register: Callable[..., None]) -> None:
    register("example", _parse)


def register_memory_providers(register: Callable[..., None]) -> None:
    register("example-memory", ExampleMemory)


def register_commands(cli: click.Group) -> None:
    @cli.command("example-hello")
    @click.argument("name", default="world")
    def hello(name: str) -> None:
        """Greet NAME from the example plugin."""
        click.echo(f"hello {name}, from the example plugin")
