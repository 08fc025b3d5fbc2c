"""MCP servers Kenning uses as tools: ``[mcp.servers.NAME]`` in config.toml.

    [mcp.servers.github]
    command = "npx"                      # a stdio server: the program and its args
    args = ["-y", "@modelcontextprotocol/server-github"]
    env = { GITHUB_TOKEN = "${GITHUB_TOKEN}" }   # ${VAR} / ${VAR:-default} from the environment
    allowed_tools = ["get_issue", "search_issues"]   # optional: only these (default: all)

    [mcp.servers.docs]
    url = "https://example.com/mcp"      # a streamable HTTP server (transport = "sse" for SSE)
    headers = { Authorization = "Bearer ${DOCS_TOKEN}" }

Claude Code keeps the same servers as ``mcpServers`` maps: user-wide and per
project in ``~/.claude.json``, shared in a project's ``.mcp.json``;
:func:`claude_code_servers` reads them for ``kenning mcp import claude-code``.
Nothing here starts a server (that is :mod:`kenning.mcp.toolset`); a bad entry
is reported with its name and what to fix, and the others still load.
"""

from __future__ import annotations

import json
import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

NAME = re.compile(r"^[A-Za-z0-9_-]{1,40}$")
_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
TRANSPORTS = ("stdio", "http", "sse")


@dataclass(frozen=True)
class McpServerSpec:
    name: str
    transport: str  # stdio, http or sse
    command: str = ""
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    url: str = ""
    headers: Mapping[str, str] = field(default_factory=dict)
    allowed_tools: tuple[str, ...] = ()  # empty: every tool the server lists
    enabled: bool = True

    def allows(self, tool: str) -> bool:
        return not self.allowed_tools or tool in self.allowed_tools


class McpConfigError(ValueError):
    """One server's entry cannot be used; the message names it and the fix."""


def expand(text: str, environ: Mapping[str, str]) -> str:
    """``${VAR}`` and ``${VAR:-default}`` as Claude Code expands them (unset: empty)."""
    return _VAR.sub(lambda m: environ.get(m.group(1)) or (m.group(2) or ""), text)


def _strings(value: Any, what: str) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise McpConfigError(f"{what} must be a list of strings")


def _table(value: Any, what: str) -> dict[str, str]:
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise McpConfigError(f"{what} must be a table of strings")
    return {str(k): v for k, v in value.items()}


def spec_from(name: str, raw: Mapping[str, Any], *, where: str) -> McpServerSpec:
    """One server's entry (Kenning's or Claude Code's shape) as a spec, or McpConfigError."""
    label = f"{where}: MCP server {name!r}"
    if not NAME.match(name):
        raise McpConfigError(f"{label}: a name is letters, digits, - and _ (at most 40)")
    known = {"type", "transport", "command", "args", "env", "url", "headers"}
    known |= {"allowed_tools", "enabled"}
    unknown = sorted(set(raw) - known)
    if unknown:
        raise McpConfigError(f"{label}: unknown key(s) {', '.join(unknown)}")
    command = _strings(raw.get("command", []), f"{label}: command")
    args = _strings(raw.get("args", []), f"{label}: args")
    url = raw.get("url", "")
    if not isinstance(url, str):
        raise McpConfigError(f"{label}: url must be a string")
    transport = str(raw.get("transport") or raw.get("type") or ("stdio" if command else "http"))
    transport = "http" if transport == "streamable-http" else transport
    if transport not in TRANSPORTS:
        raise McpConfigError(f"{label}: transport must be one of {', '.join(TRANSPORTS)}")
    if transport == "stdio" and not command:
        raise McpConfigError(f"{label}: a stdio server needs command = [PROGRAM, ARGS…]")
    if transport != "stdio" and not url:
        raise McpConfigError(f'{label}: an {transport} server needs url = "https://…"')
    enabled = raw.get("enabled", True)
    return McpServerSpec(
        name=name,
        transport=transport,
        command=command[0] if command else "",
        args=(*command[1:], *args),
        env=_table(raw.get("env", {}), f"{label}: env"),
        url=url,
        headers=_table(raw.get("headers", {}), f"{label}: headers"),
        allowed_tools=_strings(raw.get("allowed_tools", []), f"{label}: allowed_tools"),
        enabled=enabled is not False,
    )


def configured_servers(
    config_file: Path,
) -> tuple[list[McpServerSpec], list[str]]:
    """The ``[mcp.servers.*]`` of ``config_file``: (usable specs, one problem per bad entry)."""
    try:
        data = tomllib.loads(config_file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return [], []
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        return [], [f"{config_file}: cannot read the MCP servers ({exc})"]
    servers = (data.get("mcp") or {}).get("servers") or {}
    if not isinstance(servers, dict):
        return [], [f"{config_file}: [mcp.servers] must hold one table per server"]
    specs, problems = [], []
    for name, raw in servers.items():
        try:
            if not isinstance(raw, dict):
                raise McpConfigError(f"{config_file}: [mcp.servers.{name}] must be a table")
            spec = spec_from(str(name), raw, where=str(config_file))
        except McpConfigError as exc:
            problems.append(str(exc))
            continue
        if spec.enabled:
            specs.append(spec)
    return specs, problems


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def claude_code_servers(
    user_home: Path, project: Path
) -> tuple[dict[str, tuple[str, dict[str, Any]]], list[str]]:
    """Claude Code's MCP servers for ``project``: name -> (where it came from, entry).

    Claude Code's precedence: local (``~/.claude.json`` under the project's
    path) over project (``.mcp.json``) over user (``~/.claude.json`` at the
    top). Kenning's own entry is left out: it is not a tool server for itself.
    """
    found: dict[str, tuple[str, dict[str, Any]]] = {}
    problems: list[str] = []
    claude = _read_json(user_home / ".claude.json")
    shared = _read_json(project / ".mcp.json")
    layers: list[tuple[str, Any]] = []
    if isinstance(claude, dict):
        layers.append(("~/.claude.json (user)", claude.get("mcpServers")))
    if isinstance(shared, dict):
        layers.append((str(project / ".mcp.json"), shared.get("mcpServers")))
    if isinstance(claude, dict) and isinstance(claude.get("projects"), dict):
        entry = claude["projects"].get(str(project.resolve())) or {}
        if isinstance(entry, dict):
            layers.append((f"~/.claude.json ({project})", entry.get("mcpServers")))
    for where, servers in layers:
        if servers is None:
            continue
        if not isinstance(servers, dict):
            problems.append(f"{where}: mcpServers is not an object")
            continue
        for name, raw in servers.items():
            if name == "kenning":
                continue
            if isinstance(raw, dict):
                found[str(name)] = (where, raw)
            else:
                problems.append(f"{where}: server {name!r} is not an object")
    return found, problems


def toml_values(spec: McpServerSpec) -> dict[str, Any]:
    """The ``[mcp.servers.NAME]`` table for ``spec`` (what ``import`` writes)."""
    values: dict[str, Any] = {}
    if spec.transport == "stdio":
        values["command"] = spec.command
        if spec.args:
            values["args"] = list(spec.args)
    else:
        values["url"] = spec.url
        if spec.transport == "sse":
            values["transport"] = "sse"
    if spec.env:
        values["env"] = dict(spec.env)
    if spec.headers:
        values["headers"] = dict(spec.headers)
    return values


def environ_for(spec: McpServerSpec, environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The server's own variables, expanded (the SDK adds a minimal PATH/HOME)."""
    env = os.environ if environ is None else environ
    return {key: expand(value, env) for key, value in spec.env.items()}


def without_secrets(spec: McpServerSpec) -> tuple[McpServerSpec, list[str]]:
    """``spec`` with every literal env and header value replaced by a ``${VAR}`` reference,
    and the variables to export. config.toml is committed to the home's history
    (and may be synced), so a key typed into Claude Code's config must not land in it."""
    exports: list[str] = []

    def ref(value: str, variable: str) -> str:
        if _VAR.search(value):
            return value
        exports.append(variable)
        return f"${{{variable}}}"

    env = {key: ref(value, key) for key, value in spec.env.items()}
    headers = {
        key: ref(value, f"MCP_{spec.name}_{key}".upper().replace("-", "_"))
        for key, value in spec.headers.items()
    }
    return replace(spec, env=env, headers=headers), exports
