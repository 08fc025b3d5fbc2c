"""Configuration: ``config.toml`` in the home, with clear precedence.

Precedence, highest first: command line (``--set section.key=value``) >
environment (``KENNING_<SECTION>__<KEY>``, e.g. ``KENNING_MEMORY__USER_BUDGET``)
> ``config.toml`` > the defaults below. The double underscore separates the
section from the key because keys themselves contain underscores.

Config is a frozen value; every effective value remembers where it came from
so ``kenning config show`` can explain itself. Unknown sections or keys are an
error, not silently ignored: a typo in a budget should not go unnoticed.

Every setting declares what it accepts next to its default: numbers a
:class:`Range` (``number(...)``), closed choices their options
(``choice(...)``). ``load`` checks each value from every layer against that
declaration, so a negative timeout or a share above 1 is reported with the
setting, the value, where it came from and the valid range, instead of
surfacing later as a strange failure. Every problem raises ConfigError.
"""

from __future__ import annotations

import dataclasses
import difflib
import os
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from kenning.config.sections import (
    AT_LEAST_ONE as AT_LEAST_ONE,
)
from kenning.config.sections import (
    BUDGET_CHARS as BUDGET_CHARS,
)
from kenning.config.sections import (
    ENV_PREFIX as ENV_PREFIX,
)
from kenning.config.sections import (
    FRACTION as FRACTION,
)
from kenning.config.sections import (
    NON_NEGATIVE as NON_NEGATIVE,
)
from kenning.config.sections import (
    POSITIVE as POSITIVE,
)
from kenning.config.sections import (
    SHARE as SHARE,
)
from kenning.config.sections import (
    AgentConfig as AgentConfig,
)
from kenning.config.sections import (
    Config as Config,
)
from kenning.config.sections import (
    ConfigError as ConfigError,
)
from kenning.config.sections import (
    ContextConfig as ContextConfig,
)
from kenning.config.sections import (
    CronConfig as CronConfig,
)
from kenning.config.sections import (
    DreamConfig as DreamConfig,
)
from kenning.config.sections import (
    EmbeddingConfig as EmbeddingConfig,
)
from kenning.config.sections import (
    HistoryConfig as HistoryConfig,
)
from kenning.config.sections import (
    MemoryConfig as MemoryConfig,
)
from kenning.config.sections import (
    ModelConfig as ModelConfig,
)
from kenning.config.sections import (
    Range as Range,
)
from kenning.config.sections import (
    ReviewConfig as ReviewConfig,
)
from kenning.config.sections import (
    RulesConfig as RulesConfig,
)
from kenning.config.sections import (
    SafetyConfig as SafetyConfig,
)
from kenning.config.sections import (
    SearchConfig as SearchConfig,
)
from kenning.config.sections import (
    SkillsConfig as SkillsConfig,
)
from kenning.config.sections import (
    StorageConfig as StorageConfig,
)
from kenning.config.sections import (
    SyncConfig as SyncConfig,
)
from kenning.config.sections import (
    _number,
)
from kenning.config.sections import (
    choice as choice,
)
from kenning.config.sections import (
    number as number,
)

# The one table of config.toml that is not a section of settings.
SERVERS_SECTION = "mcp"


def _sections() -> dict[str, type[Any]]:
    hints = {f.name: f.default_factory for f in dataclasses.fields(Config) if f.name != "sources"}
    return {name: factory for name, factory in hints.items()}  # type: ignore[misc]


def _field_types(section_cls: type[Any]) -> dict[str, type[Any]]:
    defaults = section_cls()
    return {f.name: type(getattr(defaults, f.name)) for f in dataclasses.fields(section_cls)}


def declared(section: str, key: str) -> Mapping[str, Any]:
    """What ``section.key`` declares it accepts: {"range": Range} or {"choices": (...)}."""
    for f in dataclasses.fields(_sections()[section]):
        if f.name == key:
            return f.metadata
    raise KeyError(f"{section}.{key}")


def _check_value(section: str, key: str, value: Any, where: str) -> None:
    """ConfigError unless ``value`` is within what ``section.key`` declares."""
    rules = declared(section, key)
    valid: Range | None = rules.get("range")
    if valid is not None and value not in valid:
        raise ConfigError(
            f"{where}: {value!r} is out of range; {section}.{key} must be {valid.describe()}"
            f" (default {_number(getattr(_sections()[section](), key))})."
        )
    options: tuple[str, ...] | None = rules.get("choices")
    if options is not None and value not in options:
        raise ConfigError(f"{where}: {value!r} is not one of {', '.join(options)}")


def _suggest(word: str, options: list[str]) -> str:
    close = difflib.get_close_matches(word, options, n=1)
    hint = f" Did you mean {close[0]!r}?" if close else ""
    return f"{hint} Valid: {', '.join(sorted(options))}."


def _coerce(raw: Any, wanted: type[Any], where: str) -> Any:
    if wanted is dict:  # an options table: a TOML table, or an inline table from env / --set
        return _table(raw, where)
    if wanted is tuple:  # lists of strings: a TOML list, or "a,b" from env / --set
        items = raw.split(",") if isinstance(raw, str) else raw
        if not isinstance(items, list | tuple) or not all(isinstance(i, str) for i in items):
            raise ConfigError(f"{where}: expected a list of strings, got {raw!r}")
        return tuple(i.strip() for i in items if i.strip())
    if isinstance(raw, str) and wanted is not str:
        text = raw.strip()
        if wanted is bool:
            lowered = text.lower()
            if lowered in {"1", "true", "yes", "on"}:
                return True
            if lowered in {"0", "false", "no", "off"}:
                return False
            raise ConfigError(f"{where}: expected true or false, got {raw!r}")
        try:
            return wanted(text)
        except ValueError as exc:
            raise ConfigError(f"{where}: expected {wanted.__name__}, got {raw!r}") from exc
    if wanted is float and isinstance(raw, int) and not isinstance(raw, bool):
        return float(raw)
    if not isinstance(raw, wanted) or (wanted is int and isinstance(raw, bool)):
        raise ConfigError(f"{where}: expected {wanted.__name__}, got {raw!r}")
    return raw


def _table(raw: Any, where: str) -> dict[str, Any]:
    if isinstance(raw, str):
        try:
            raw = tomllib.loads(f"value = {raw.strip() or '{}'}")["value"]
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(
                f"{where}: {raw!r} is not a TOML inline table ({exc}); "
                "write it like '{url = \"http://127.0.0.1:8765/mcp\", limit = 5}'"
            ) from exc
    if not isinstance(raw, dict):
        raise ConfigError(f"{where}: expected a table of options, got {raw!r}")
    return dict(raw)


def _check_key(section: str, key: str, where: str) -> type[Any]:
    sections = _sections()
    if section not in sections:
        raise ConfigError(
            f"{where}: unknown section {section!r}.{_suggest(section, list(sections))}"
        )
    types = _field_types(sections[section])
    if key not in types:
        raise ConfigError(f"{where}: unknown key {section}.{key}.{_suggest(key, list(types))}")
    return types[key]


def read_file(path: Path) -> dict[str, dict[str, Any]]:
    """Parse ``config.toml``; a missing file is an empty config (ConfigError if unusable)."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return {}
    except OSError as exc:  # a directory, no permission, ...
        raise ConfigError(
            f"{path} cannot be read ({exc.strerror or exc}). Fix it or move it aside."
        ) from exc
    try:
        text = raw.decode("utf-8")
        data = tomllib.loads(text)
    except UnicodeDecodeError as exc:
        raise ConfigError(
            f"{path} is not valid UTF-8 TOML (undecodable byte at offset {exc.start}). "
            "Fix the file or move it aside."
        ) from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(
            f"{path}: not valid TOML ({exc}). Fix the file or move it aside."
        ) from exc
    for section, values in data.items():
        if not isinstance(values, dict):
            raise ConfigError(f"{path}: {section!r} must be a [table] of settings")
    return data


def env_overrides(environ: Mapping[str, str]) -> dict[str, dict[str, str]]:
    found: dict[str, dict[str, str]] = {}
    sections = _sections()
    for name, value in environ.items():
        if not name.startswith(ENV_PREFIX) or "__" not in name:
            continue
        section, _, key = name[len(ENV_PREFIX) :].lower().partition("__")
        if section in sections:  # other KENNING_* variables (HOME, PROFILE) are not settings
            found.setdefault(section, {})[key] = value
    return found


def parse_assignments(assignments: list[str]) -> dict[str, dict[str, str]]:
    """Turn ``["memory.user_budget=2000"]`` into nested overrides."""
    found: dict[str, dict[str, str]] = {}
    for item in assignments:
        name, sep, value = item.partition("=")
        section, dot, key = name.strip().partition(".")
        if not sep or not dot:
            raise ConfigError(
                f"--set {item!r}: use section.key=value, e.g. memory.user_budget=2000"
            )
        found.setdefault(section, {})[key] = value
    return found


def _where(origin: str, section: str, key: str, path: Path | None) -> str:
    """Where a value came from, as the user would find it again."""
    if origin == "file":
        return f"{path}: [{section}] {key}"
    if origin == "env":
        return f"environment {ENV_PREFIX}{section.upper()}__{key.upper()}"
    return f"--set {section}.{key}"


def origin_of(config: Config, section: str, key: str, path: Path | None) -> str:
    """Where ``section.key``'s effective value came from, in the words errors use."""
    origin = config.sources.get(f"{section}.{key}", "default")
    return "the default" if origin == "default" else _where(origin, section, key, path)


def load(
    path: Path | None,
    *,
    environ: Mapping[str, str] | None = None,
    cli: Mapping[str, Mapping[str, Any]] | None = None,
) -> Config:
    """Build the effective config from defaults < file < environment < command line.

    Raises ConfigError (never returns a half-checked config) for an unreadable
    or non-UTF-8 file, invalid TOML, unknown settings, values of the wrong type
    and values outside their declared range or choices.
    """
    layers: list[tuple[str, Mapping[str, Mapping[str, Any]]]] = [
        ("file", read_file(path) if path is not None else {}),
        ("env", env_overrides(os.environ if environ is None else environ)),
        ("cli", cli or {}),
    ]
    sections = _sections()
    values: dict[str, dict[str, Any]] = {name: {} for name in sections}
    sources: dict[str, str] = {}
    for name, cls in sections.items():
        for key in _field_types(cls):
            sources[f"{name}.{key}"] = "default"
    for origin, layer in layers:
        for section, entries in layer.items():
            if origin == "file" and section == SERVERS_SECTION:
                continue  # [mcp.servers.*]: tables per server, read by kenning.mcp.servers
            for key, raw in entries.items():
                where = _where(origin, section, key, path)
                wanted = _check_key(section, key, where)
                value = _coerce(raw, wanted, where)
                _check_value(section, key, value, where)
                values[section][key] = value
                sources[f"{section}.{key}"] = origin
    built = {name: cls(**values[name]) for name, cls in sections.items()}
    _check_order(built, sources, path)
    return Config(**built, sources=sources)


# Settings that only make sense in an order: each pair is (section, smaller, larger,
# strictly). Checked after every layer is applied, since either side may come from any.
_ORDER = (
    ("context", "prune_at", "placeholder_at", False),
    ("context", "placeholder_at", "compact_at", False),
    ("context", "flush_at", "compact_at", False),
    ("context", "warn_at", "warn_high_at", False),
    ("context", "warn_high_at", "warn_critical_at", False),
    ("context", "cooldown_s", "cooldown_max_s", False),
    ("search", "chunk_overlap", "chunk_tokens", True),
)


def _check_order(built: Mapping[str, Any], sources: Mapping[str, str], path: Path | None) -> None:
    for section, low, high, strict in _ORDER:
        a, b = getattr(built[section], low), getattr(built[section], high)
        if a > b or (strict and a == b):
            origins = ", ".join(
                f"{section}.{key} = {_number(val)} ({sources[f'{section}.{key}']})"
                for key, val in ((low, a), (high, b))
            )
            relation = "smaller than" if strict else "at most"
            raise ConfigError(
                f"{section}.{low} must be {relation} {section}.{high}; got {origins}."
                f" Change one of them{f' in {path}' if path else ''}."
            )
