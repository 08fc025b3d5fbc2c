"""Permission modes: what a tool may do without asking, for any tool that changes things.

A chat runs in one of four modes (``kenning chat --mode``, ``/mode``):

- ``ask`` (the default): a file edit shows its unified diff and is applied
  only when the user says so; a shell command asks unless the policy lets it
  run (read-only commands such as ``ls``, ``cat``, ``git status`` do, through
  ``agent.shell_allow``) or the user has always allowed it in this project;
- ``auto-edit``: edits are applied and shown; shell commands ask as in ``ask``;
- ``plan``: read-only tools only: every other tool is refused at dispatch
  (the registry), and a tool that gates itself (``shell``) runs only what its
  policy calls read-only;
- ``yolo``: nothing asks.

The mode lives in a :class:`Permissions` object in the tool context's extras
(``ctx.extras["permissions"]``); a context without one (``kenning run``,
cron, the MCP server) keeps the behaviour it always had: edits apply, and a
command that needs approval goes to ``ctx.approve`` or is refused.

:func:`authorize` is the one gate: a tool builds an ``ApprovalRequest`` (its
``kind``: "shell", "edit", or a tool's own, e.g. "python"), says whether its
own policy finds the action safe, and gets back normally or a ``ToolError``
the model can act on. "Always allow" answers are kept per project in
:class:`ProjectRules` (``cache/permissions.json`` in the home, keyed by the
project's path, written atomically).
"""

from __future__ import annotations

import asyncio
import json
import shlex
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from kenning.fsutil import atomic_write, held
from kenning.tools.base import ApprovalRequest, ToolContext, ToolError

Mode = Literal["ask", "auto-edit", "plan", "yolo"]
MODES: tuple[Mode, ...] = ("ask", "auto-edit", "plan", "yolo")
MODE_HELP: dict[Mode, str] = {
    "ask": "edits show a diff and ask; shell commands ask unless read-only or always allowed",
    "auto-edit": "edits are applied and shown; shell commands ask",
    "plan": "read-only tools only: nothing is changed",
    "yolo": "nothing asks",
}
RULES_FILE = Path("cache") / "permissions.json"


def parse_mode(text: str) -> Mode:
    """``text`` as a mode (``auto_edit`` and ``autoedit`` too); ValueError naming the modes."""
    wanted = text.strip().lower().replace("_", "-")
    wanted = "auto-edit" if wanted == "autoedit" else wanted
    for mode in MODES:
        if mode == wanted:
            return mode
    raise ValueError(f"unknown mode {text!r}; the modes are {', '.join(MODES)}")


class ProjectRules:
    """The commands the user always allows in one project: exact lines and prefixes.

    Prefixes are words a command must start with ("git commit", "npm test"),
    checked per simple command by the shell policy, so ``git commit && rm x``
    is not covered by "git commit".
    """

    def __init__(self, home_root: Path, project: Path) -> None:
        self.path = home_root / RULES_FILE
        self.project = str(project.resolve())

    def _load_all(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {"projects": {}}
        if not isinstance(data, dict) or not isinstance(data.get("projects"), dict):
            return {"projects": {}}
        return data

    def _mine(self, data: dict[str, Any]) -> dict[str, list[str]]:
        entry = data["projects"].get(self.project)
        if not isinstance(entry, dict):
            return {"exact": [], "prefix": []}
        return {
            kind: [str(x) for x in entry.get(kind, []) if isinstance(x, str)]
            for kind in ("exact", "prefix")
        }

    @property
    def exact(self) -> list[str]:
        return self._mine(self._load_all())["exact"]

    @property
    def prefixes(self) -> list[str]:
        return self._mine(self._load_all())["prefix"]

    def add(self, kind: Literal["exact", "prefix"], text: str) -> None:
        """Remember ``text``; read-modify-write under the file's lock, atomic."""
        with held(self.path):
            data = self._load_all()
            mine = self._mine(data)
            if text not in mine[kind]:
                mine[kind].append(text)
            data["projects"][self.project] = mine
            atomic_write(self.path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def prefix_of(command: str) -> str | None:
    """The prefix an "always allow" of ``command`` would remember, or None for a compound
    command (only the exact line can be allowed then): the program and its first
    word that is not an option, e.g. ``git commit`` for ``git commit -m x``."""
    if any(ch in command for ch in ";&|()<>`$\n"):
        return None
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    if not words or "=" in words[0]:
        return None
    if len(words) > 1 and not words[1].startswith("-"):
        return f"{words[0]} {words[1]}"
    return words[0]


@dataclass
class Permissions:
    """The mode of a chat and what goes with it (see the module docstring)."""

    mode: Mode = "ask"
    rules: ProjectRules | None = None
    # Shows an edit applied without asking (auto-edit, yolo), with its diff.
    on_applied: Callable[[ApprovalRequest], None] | None = None
    # Called with each path just before a tool changes it (the /undo checkpoint).
    before_write: Callable[[Path], None] | None = None
    notes: list[str] = field(default_factory=list)


def rule_key(request: ApprovalRequest) -> str:
    """What "always allow" remembers for a request of a tool's own kind (``mcp:NAME``);
    shell commands are remembered as their command line."""
    return str(request) if request.kind == "shell" else f"{request.kind}:{request}"


def permissions_of(ctx: ToolContext) -> Permissions | None:
    found = ctx.extras.get("permissions")
    return found if isinstance(found, Permissions) else None


def plan_refusal(what: str) -> ToolError:
    return ToolError(
        f"{what} was not done: this chat is in plan mode, where only read-only tools run.",
        "look around with the read-only tools and describe the changes you would make; "
        "the user leaves plan mode with /mode ask (or auto-edit) when they agree.",
    )


async def authorize(ctx: ToolContext, request: ApprovalRequest, *, safe: bool = False) -> None:
    """Return if ``request`` may go ahead; raise ToolError (nothing done) if not.

    ``safe``: the tool's own policy lets it run without asking (a read-only
    command). Edits (``kind == "edit"``) ask only in ``ask`` mode; everything
    else asks unless safe or, for shell commands, always allowed.
    """
    perms = permissions_of(ctx)
    if perms is None:
        if request.kind == "edit" or safe:
            return
        await ask(ctx, request)
        return
    if perms.mode == "plan":
        if safe and request.kind != "edit":
            return
        raise plan_refusal(f"the {request.kind} {_short(request)}")
    if perms.mode == "yolo" or safe:
        _applied(perms, request)
        return
    kept = perms.rules.exact if perms.rules is not None else []
    if request.kind not in {"shell", "edit"} and rule_key(request) in kept:
        return
    if request.kind == "edit" and perms.mode == "auto-edit":
        _applied(perms, request)
        return
    await ask(ctx, request)


def _applied(perms: Permissions, request: ApprovalRequest) -> None:
    if request.kind == "edit" and perms.on_applied is not None:
        perms.on_applied(request)


def _short(request: ApprovalRequest) -> str:
    text = str(request).splitlines()[0] if str(request) else ""
    return f"({text[:80]})" if text else ""


async def ask(ctx: ToolContext, request: ApprovalRequest) -> None:
    """Put ``request`` to the user; ToolError when nobody can be asked or they decline."""
    shell = request.kind == "shell"
    if ctx.approve is None:
        what = "the command" if shell else f"this {request.kind}"
        raise ToolError(
            f"{what} needs the user's approval ({request.reason}), and nobody can "
            f"be asked in this context ({ctx.purpose}).",
            "use the file tools instead, or tell the user the command to run. To let such "
            "commands run without asking, the user can add the program to agent.shell_allow "
            'with agent.shell_approval = "allowlist".'
            if shell
            else "tell the user what you would do, or do it from the main session where they "
            "can approve it.",
        )
    try:
        approved = await ctx.approve(request)
    except asyncio.CancelledError:
        raise
    except Exception as exc:
        done = "the command was not run" if shell else "nothing was done"
        raise ToolError(f"asking for approval failed ({exc}); {done}.", None) from exc
    if not approved:
        raise ToolError(
            "the user declined to run this command."
            if shell
            else f"the user declined this {request.kind}; nothing was done.",
            "do not run it again. Ask the user how they want to proceed, or take another approach."
            if shell
            else "do not try it again unchanged. Ask the user how they want to proceed, or take "
            "another approach.",
        )
