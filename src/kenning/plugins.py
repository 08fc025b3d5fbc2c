"""Plugins: other packages extend Kenning through entry points in the group ``kenning``.

A plugin is a module (or any object) named by an entry point::

    [project.entry-points.kenning]
    example = "kenning_example"

that defines any of these hook functions. Each is called once per process
with a ``register`` callable (``register_commands`` with a click group):

=================================== ===================================================
``register_models(register)``       ``register("prefix", factory)``: ``--model
                                    prefix:NAME`` resolves to ``factory(ModelRequest)``
``register_tools(register)``        ``register(fn, name=None, read_only=False)``: a
                                    typed function, schema from signature and docstring
``register_embedders(register)``    ``register("name", factory)``: ``[embedding]
                                    provider = "name"`` uses ``factory(EmbeddingConfig)``
``register_importers(register)``    ``register("format", parser)``: ``kenning sessions
                                    import format FILE`` stores ``parser(path)``
``register_commands(cli)``          ``@cli.command()`` / ``cli.add_command(...)``
``register_memory_providers(reg)``  ``register("name", factory)``: ``[memory] provider
                                    = "name"`` uses ``factory(ProviderSetup)``, a
                                    ``kenning.providers.MemoryProvider``
=================================== ===================================================

Rules the rest of Kenning relies on:

- Loading is lazy and happens once per process (``registry()``): on the first
  model prefix that is not built in, the tools of a new session, an embedder
  or import format that is not built in, a command that is not built in, or
  ``kenning plugins``. ``import kenning`` loads nothing.
- A plugin that fails to import, whose hook raises, or that defines a
  ``register_*`` function that is no hook (a typo) is recorded in its
  ``PluginInfo.errors``, logged as a warning (the CLI prints it on stderr) and
  skipped; every other plugin and hook still loads. A hook that raises
  registers nothing: each hook's registrations are kept all or none.
- Built-ins win. A name a built-in already has, or that an earlier plugin
  (in distribution-name order) registered, is not taken; the clash is
  recorded and logged. This module does not know the built-ins and imports no
  other part of Kenning, so the models, embedders, importers, the tools and the
  CLI can all depend on it without a cycle. Each place that offers plugin
  additions asks ``accepted(kind, builtin_names)``, or ``built(kind,
  builtin_names, build)`` where only the consumer can finish a registration: a
  tool is kept as registered (``ToolRegistration``) and made a ``Tool`` by the
  runtime; a registration it cannot build is recorded as the plugin's error.

Why not pluggy (which llm and datasette use): its value is in calling one
hook across many plugins — ordering, wrappers, first-result. Kenning's hooks
are registrations that must run per plugin, each failure isolated and each
result attributed to its plugin for ``kenning plugins``; pluggy's
``load_setuptools_entrypoints`` stops at the first plugin that fails to
import and a hook call stops at the first implementation that raises, so we
would call every implementation by hand and keep only its argument-name
check. ``importlib.metadata.entry_points`` plus the loop below is less code to
inherit than a dependency used for one check, and plugins need no marker
decorator: plain functions with the hook's name, as in sqlite-utils' docs.
"""

from __future__ import annotations

import difflib
import importlib.metadata
import logging
import re
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

log = logging.getLogger(__name__)
T = TypeVar("T")

GROUP = "kenning"

# hook name -> the kind of thing it registers, in the order hooks are called.
HOOKS: dict[str, str] = {
    "register_models": "models",
    "register_tools": "tools",
    "register_embedders": "embedders",
    "register_importers": "importers",
    "register_memory_providers": "memory_providers",
    "register_commands": "commands",
}
KINDS = tuple(HOOKS.values())

# What a model API accepts as a tool name (OpenAI's rule, the strictest).
_TOOL_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


class PluginError(ValueError):
    """A ``register`` call a plugin got wrong; the message says which and how to fix it."""


@dataclass
class PluginInfo:
    """One entry point: where it comes from, what it registered, what went wrong."""

    name: str  # the entry point's name
    entry_point: str  # its value, "module" or "module:object"
    distribution: str
    version: str
    registered: dict[str, list[str]] = field(default_factory=lambda: {k: [] for k in KINDS})
    clashes: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.errors

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "entry_point": self.entry_point,
            "distribution": self.distribution,
            "version": self.version,
            "ok": self.ok,
            "registered": {k: list(v) for k, v in self.registered.items()},
            "clashes": list(self.clashes),
            "errors": list(self.errors),
        }


@dataclass(frozen=True)
class ToolRegistration:
    """A tool as a plugin registered it: a typed function (or a ready ``Tool``), its name,
    and whether it only reads. ``kenning.runtime`` builds the ``Tool`` from it."""

    fn: Callable[..., Any]
    name: str
    read_only: bool = False


@dataclass(frozen=True)
class _Entry:
    plugin: PluginInfo
    value: Any


@dataclass
class PluginRegistry:
    """Everything the installed plugins registered, by kind and name, and every problem."""

    plugins: list[PluginInfo] = field(default_factory=list)
    entries: dict[str, dict[str, _Entry]] = field(default_factory=lambda: {k: {} for k in KINDS})
    _noted: set[tuple[str, str, str]] = field(default_factory=set)
    _built: dict[tuple[str, str], Any] = field(default_factory=dict)  # (kind, name) -> value
    _refused: set[tuple[str, str]] = field(default_factory=set)

    @property
    def failures(self) -> list[PluginInfo]:
        return [p for p in self.plugins if not p.ok]

    def names(self, kind: str) -> list[str]:
        return list(self.entries[kind])

    def accepted(self, kind: str, builtins: Iterable[str]) -> dict[str, Any]:
        """The ``kind`` registrations whose names no built-in has; clashes are recorded."""
        taken = set(builtins)
        found: dict[str, Any] = {}
        for name, entry in self.entries[kind].items():
            if name in taken:
                self._clash(entry.plugin, kind, name, "a built-in, which is kept")
            else:
                found[name] = entry.value
        return found

    def built(self, kind: str, builtins: Iterable[str], build: Callable[[Any], T]) -> dict[str, T]:
        """``accepted``, each value passed through ``build`` once per process. A value
        ``build`` refuses (it raises) is recorded as its plugin's error, once, and left out."""
        found: dict[str, T] = {}
        for name, value in self.accepted(kind, builtins).items():
            key = (kind, name)
            if key in self._refused:
                continue
            if key not in self._built:
                plugin = self.entries[kind][name].plugin
                try:
                    self._built[key] = build(value)
                except Exception as exc:
                    self._refused.add(key)
                    plugin.registered[kind].remove(name)
                    singular = kind.rstrip("s").replace("_", " ")
                    self._fail(plugin, f"{singular} {name!r} cannot be used: {exc}")
                    continue
            found[name] = self._built[key]
        return found

    def _clash(self, plugin: PluginInfo, kind: str, name: str, holder: str) -> None:
        key = (plugin.name, kind, name)
        if key in self._noted:  # asked again by every new session: say it once
            return
        self._noted.add(key)
        singular = kind.rstrip("s").replace("_", " ")
        message = f"{singular} {name!r} is already {holder}; the plugin's is not used"
        plugin.clashes.append(message)
        log.warning("plugin %s: %s", plugin.name, message)

    def _fail(self, plugin: PluginInfo, message: str) -> None:
        plugin.errors.append(message)
        log.warning("plugin %s: %s", plugin.name, message)


# -- loading -----------------------------------------------------------------------------------

_lock = threading.Lock()
_loaded: PluginRegistry | None = None


def registry() -> PluginRegistry:
    """The installed plugins, loaded on the first call in this process."""
    global _loaded
    with _lock:
        if _loaded is None:
            _loaded = load(importlib.metadata.entry_points(group=GROUP))
        return _loaded


def reset() -> None:
    """Forget what was loaded: the next ``registry()`` looks again (for tests)."""
    global _loaded
    with _lock:
        _loaded = None


def load(entry_points: Iterable[importlib.metadata.EntryPoint]) -> PluginRegistry:
    """Load each entry point and call its hooks; problems are recorded, never raised."""
    found = PluginRegistry()

    def order(ep: importlib.metadata.EntryPoint) -> tuple[str, str]:
        return (ep.dist.name.lower() if ep.dist else "", ep.name)

    for ep in sorted(entry_points, key=order):
        info = PluginInfo(
            name=ep.name,
            entry_point=ep.value,
            distribution=ep.dist.name if ep.dist else "?",
            version=ep.dist.version if ep.dist else "?",
        )
        found.plugins.append(info)
        try:
            plugin = ep.load()
        except (Exception, SystemExit) as exc:  # a plugin's import must never end Kenning
            why = f"{type(exc).__name__}: {exc}"
            found._fail(info, f"cannot import {ep.value} ({why}); the plugin is skipped")
            continue
        _call_hooks(found, info, plugin)
    return found


def _call_hooks(found: PluginRegistry, info: PluginInfo, plugin: Any) -> None:
    hooks = {name: getattr(plugin, name) for name in HOOKS if callable(getattr(plugin, name, None))}
    for name in _misspelt_hooks(plugin):
        close = difflib.get_close_matches(name, list(HOOKS), n=1)
        hint = f"; did you mean {close[0]}?" if close else ""
        found._fail(info, f"{name} is not a Kenning hook and was not called{hint}")
    if not hooks:
        found._fail(info, f"{info.entry_point} defines none of the hooks {', '.join(HOOKS)}")
        return
    for name, hook in hooks.items():
        kind = HOOKS[name]
        staged: dict[str, Any] = {}
        try:
            if kind == "commands":
                staged = _commands_from(hook)
            else:
                hook(_registrar(kind, staged))
        except (Exception, SystemExit) as exc:
            found._fail(
                info, f"{name} raised {type(exc).__name__}: {exc}; nothing it registered is used"
            )
            continue
        for what, value in staged.items():
            earlier = found.entries[kind].get(what)
            if earlier is not None:
                found._clash(info, kind, what, f"registered by the plugin {earlier.plugin.name!r}")
                continue
            found.entries[kind][what] = _Entry(info, value)
            info.registered[kind].append(what)


def _misspelt_hooks(plugin: Any) -> list[str]:
    """``register_*`` functions the plugin itself defines that are no hook (imports aside)."""
    own = getattr(plugin, "__name__", None)
    names = []
    for name in dir(plugin):
        value = getattr(plugin, name, None)
        if (
            name.startswith("register_")
            and name not in HOOKS
            and callable(value)
            and getattr(value, "__module__", None) == own
        ):
            names.append(name)
    return names


def _commands_from(hook: Callable[..., Any]) -> dict[str, Any]:
    """Call ``register_commands`` on a group of its own, so its commands are attributed."""
    import click

    group = click.Group("plugin")
    hook(group)
    return dict(group.commands)


def _registrar(kind: str, staged: dict[str, Any]) -> Callable[..., None]:
    """The ``register`` callable a hook of ``kind`` receives; it fills ``staged``."""

    def add(name: str, value: Any) -> None:
        if name in staged:
            raise PluginError(f"{name!r} is registered twice by this hook")
        staged[name] = value

    def named(name: object, what: str) -> str:
        if not isinstance(name, str) or not _NAME.match(name):
            raise PluginError(
                f"{what} {name!r} is not a usable name: letters, digits, '_', '-' and '.', "
                "starting with a letter or digit"
            )
        return name

    def need_callable(value: object, what: str) -> None:
        if not callable(value):
            raise PluginError(f"the {what} must be callable, not {type(value).__name__}")

    if kind == "tools":

        def register_tool(
            fn: Callable[..., Any], *, name: str | None = None, read_only: bool = False
        ) -> None:
            need_callable(fn, "tool")
            own = getattr(fn, "name", None)  # a ready Tool keeps its own name
            chosen = own if isinstance(own, str) else name or getattr(fn, "__name__", None)
            if not isinstance(chosen, str):
                raise PluginError(f"the tool {fn!r} has no __name__: pass name=")
            if not _TOOL_NAME.match(chosen):
                raise PluginError(
                    f"tool name {chosen!r} is not one a model accepts: "
                    "1-64 letters, digits, '_' or '-'"
                )
            add(chosen, ToolRegistration(fn, chosen, read_only))

        return register_tool

    if kind == "models":

        def register_model(prefix: str, factory: Callable[..., Any]) -> None:
            named(prefix, "model prefix")
            need_callable(factory, "model factory")
            add(prefix.lower(), factory)

        return register_model

    what = {"embedders": "embedder", "importers": "import format"}.get(kind, "memory provider")

    def register(name: str, value: Any) -> None:
        named(name, what)
        need_callable(value, "parser" if kind == "importers" else f"{what} factory")
        add(name, value)

    return register


def describe(found: PluginRegistry) -> Mapping[str, Any]:
    """What ``kenning plugins --json`` prints."""
    return {
        "plugins": [p.to_dict() for p in found.plugins],
        "failures": [p.name for p in found.failures],
    }
