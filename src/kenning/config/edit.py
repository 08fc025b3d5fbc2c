"""Set keys of one ``config.toml`` section in place, keeping everything else.

``kenning setup`` writes ``[model]`` into a file the person may have edited
by hand: their comments, other sections and key order stay as they were.
Only the named keys change: an existing ``key = …`` line of the section is
replaced where it stands, a missing key is added right after the section's
header (the section is appended when the file has none). Commented-out
lines (``# default = …``) are left alone, as documentation.

The result is parsed before it is written, and written atomically under the
file's lock: a crash leaves the old file or the new one, never half of it.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Mapping
from pathlib import Path

from kenning.config.sections import ConfigError
from kenning.fsutil import atomic_write, held

Scalar = str | int | float | bool
Value = Scalar | list[str] | dict[str, str]
_HEADER = re.compile(r"^\s*\[\s*([A-Za-z0-9_.\-]+)\s*\]\s*(#.*)?$")
_ANY_HEADER = re.compile(r"^\s*\[")


def _key_of(line: str) -> str | None:
    found = re.match(r"^\s*([A-Za-z0-9_\-]+)\s*=", line)
    return found.group(1) if found else None


def render(value: Value) -> str:
    """A TOML literal (JSON's string escapes are valid TOML basic strings); a dict is
    written as an inline table."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        pairs = ", ".join(f"{json.dumps(k)} = {json.dumps(v)}" for k, v in value.items())
        return "{ " + pairs + " }" if pairs else "{}"
    return json.dumps(value)


def with_values(text: str, section: str, values: Mapping[str, Value]) -> str:
    """``text`` with ``values`` set in ``[section]``; ConfigError if the result is not TOML."""
    lines = text.splitlines()
    start = next(
        (i for i, line in enumerate(lines) if (m := _HEADER.match(line)) and m.group(1) == section),
        None,
    )
    pending = dict(values)
    if start is None:
        if lines and lines[-1].strip():
            lines.append("")
        lines.append(f"[{section}]")
        lines.extend(f"{key} = {render(value)}" for key, value in pending.items())
    else:
        end = next(
            (i for i in range(start + 1, len(lines)) if _ANY_HEADER.match(lines[i])), len(lines)
        )
        for i in range(start + 1, end):
            key = _key_of(lines[i])
            if key in pending:
                lines[i] = f"{key} = {render(pending.pop(key))}"
        new = [f"{key} = {render(value)}" for key, value in pending.items()]
        lines[start + 1 : start + 1] = new
    result = "\n".join(lines) + "\n"
    try:
        tomllib.loads(result)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"config.toml would not be valid TOML after the change: {exc}") from exc
    return result


def set_values(path: Path, section: str, values: Mapping[str, Value]) -> None:
    """Write ``values`` into ``[section]`` of the file at ``path`` (created if missing)."""
    with held(path):
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            text = ""
        try:
            tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(
                f"{path} is not valid TOML ({exc}); fix it by hand first — nothing was written"
            ) from exc
        atomic_write(path, with_values(text, section, values))
