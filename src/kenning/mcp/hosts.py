"""``kenning mcp config <host>``: the exact snippet or command that registers the server.

The printed launch line must start the *same* home the user is looking at,
from a host that does not share their shell: desktop hosts start servers with
a minimal environment and often without the user's PATH. So it names the
``kenning`` executable by absolute path (or ``python -m kenning`` with the
absolute interpreter when no script is found), and carries the home's
selection with it: ``KENNING_HOME`` and any ``KENNING_<SECTION>__<KEY>``
setting from the environment, ``--profile`` and ``--set`` from the command
line, and ``--read-only`` when asked.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from kenning.paths import HOME_ENV

NAME = "kenning"
HOSTS = ("claude-code", "cursor", "codex", "json")


@dataclass(frozen=True)
class Launch:
    command: str
    args: tuple[str, ...]
    env: Mapping[str, str]

    def argv(self) -> list[str]:
        return [self.command, *self.args]


def kenning_command() -> list[str]:
    """How to start this installation of kenning from anywhere: absolute paths only."""
    beside = Path(sys.executable).with_name("kenning")
    if beside.is_file() and os.access(beside, os.X_OK):
        return [str(beside)]
    found = shutil.which("kenning")
    if found:
        return [str(Path(found).absolute())]
    return [str(Path(sys.executable).absolute()), "-m", "kenning"]


def launch(
    *,
    profile: str | None,
    assignments: Sequence[str],
    read_only: bool,
    environ: Mapping[str, str] | None = None,
    command: Sequence[str] | None = None,
) -> Launch:
    env_in = os.environ if environ is None else environ
    base = list(command) if command is not None else kenning_command()
    args = base[1:]
    if profile:
        args += ["--profile", profile]
    for assignment in assignments:
        args += ["--set", assignment]
    args.append("mcp")
    if read_only:
        args.append("--read-only")
    env: dict[str, str] = {}
    if env_in.get(HOME_ENV):
        env[HOME_ENV] = str(Path(env_in[HOME_ENV]).expanduser().absolute())
    for key in sorted(env_in):
        if key.startswith("KENNING_") and "__" in key:
            env[key] = env_in[key]
    return Launch(base[0], tuple(args), env)


def snippet(host: str, spec: Launch) -> str:
    """The text to paste or run for ``host`` (one of ``HOSTS``)."""
    if host == "claude-code":
        words = ["claude", "mcp", "add", NAME, "--scope", "user"]
        for key, value in spec.env.items():
            words += ["--env", f"{key}={value}"]
        return shlex.join([*words, "--", *spec.argv()])
    if host == "codex":
        lines = [
            f"[mcp_servers.{NAME}]",
            f"command = {json.dumps(spec.command)}",
            f"args = {json.dumps(list(spec.args))}",
        ]
        if spec.env:
            pairs = ", ".join(f"{key} = {json.dumps(value)}" for key, value in spec.env.items())
            lines.append(f"env = {{ {pairs} }}")
        return "\n".join(lines)
    entry: dict[str, object] = {"type": "stdio"} if host == "json" else {}
    entry.update({"command": spec.command, "args": list(spec.args)})
    if spec.env:
        entry["env"] = dict(spec.env)
    return json.dumps({"mcpServers": {NAME: entry}}, indent=2, ensure_ascii=False)


WHERE = {
    "claude-code": "Run this once; --scope user makes Kenning's memory available in every "
    "project (use --scope local for this project only). Check with `claude mcp list`.",
    "cursor": "Merge this into ~/.cursor/mcp.json (every project) or .cursor/mcp.json (this "
    "project), then enable the server in Cursor's MCP settings.",
    "codex": "Append this to ~/.codex/config.toml.",
    "json": "The generic configuration for hosts that read an mcpServers map (Claude Desktop, "
    "Windsurf, a project's .mcp.json, your own MCP client).",
}
