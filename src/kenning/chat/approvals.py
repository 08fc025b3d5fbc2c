"""How ``kenning chat`` asks the user: a diff before an edit, a command before it runs.

Answers: ``y`` (this once), ``n`` (no: the model is told), and for a shell
command ``a`` (always this exact command, in this project) or ``p`` (always
commands starting with the offered prefix, e.g. ``git commit``, in this
project) — remembered in :class:`ProjectRules`, so the next session does not
ask again. For an edit ``a`` switches the chat to ``auto-edit``. Anything else,
Ctrl-C or Ctrl-D is a no: nothing runs that was not clearly allowed.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from rich.console import Console
from rich.text import Text

from kenning.tools.base import ApprovalRequest
from kenning.tools.permissions import Permissions, prefix_of, rule_key

AskLine = Callable[[str], Awaitable[str]]
DIFF_LINES = 80  # shown before the rest is summarised


def render_diff(diff: str, *, limit: int = DIFF_LINES) -> Text:
    """A unified diff coloured as git colours it; past ``limit`` lines, a count of the rest."""
    out = Text()
    lines = diff.splitlines()
    for line in lines[:limit]:
        style = ""
        if line.startswith(("+++", "---")):
            style = "bold"
        elif line.startswith("+"):
            style = "green"
        elif line.startswith("-"):
            style = "red"
        elif line.startswith("@@"):
            style = "cyan"
        out.append(line + "\n", style=style)
    if len(lines) > limit:
        out.append(f"… {len(lines) - limit} more diff lines\n", style="dim")
    return out


class Approvals:
    """The chat's approver (``ToolContext.approve``) and what it shows for edits applied unasked."""

    def __init__(
        self,
        console: Console,
        permissions: Permissions,
        ask_line: AskLine,
        *,
        pause: Callable[[], None] | None = None,
    ) -> None:
        self.console = console
        self.permissions = permissions
        self.ask_line = ask_line
        self.pause = pause  # stops a live status line while the user reads and answers
        # Subagents run side by side: one question on the screen at a time.
        self._one_at_a_time = asyncio.Lock()

    async def __call__(self, request: str) -> bool:
        async with self._one_at_a_time:
            return await self._ask(request)

    async def _ask(self, request: str) -> bool:
        if not isinstance(request, ApprovalRequest):
            request = ApprovalRequest(request)
        if self.pause is not None:
            self.pause()
        if request.kind == "edit":
            return await self._edit(request)
        if request.kind == "shell":
            return await self._shell(request)
        return await self._other(request)

    def show_applied(self, request: ApprovalRequest) -> None:
        """An edit made without asking (auto-edit, yolo): the user still sees what changed."""
        if self.pause is not None:
            self.pause()
        self.console.print(f"[bold]edited {request}[/]", highlight=False)
        self.console.print(render_diff(request.detail), highlight=False)

    async def _answer(self, prompt: str) -> str:
        try:
            return (await self.ask_line(prompt)).strip().lower()
        except (KeyboardInterrupt, EOFError):
            return ""

    async def _edit(self, request: ApprovalRequest) -> bool:
        self.console.print(f"[bold yellow]The agent wants to {request.reason}:[/]", highlight=False)
        self.console.print(render_diff(request.detail), highlight=False)
        answer = await self._answer("Apply? [y]es / [n]o / [a]lways (auto-edit from now on) ")
        if answer in {"a", "always"}:
            self.permissions.mode = "auto-edit"
            self.console.print("[dim]mode: auto-edit — edits are applied and shown[/]")
            return True
        return answer in {"y", "yes"}

    async def _shell(self, request: ApprovalRequest) -> bool:
        command = str(request)
        self.console.print(f"[bold yellow]The agent wants to run:[/] {command}", highlight=False)
        if request.reason:
            self.console.print(f"[yellow]  ({request.reason})[/]", highlight=False)
        prefix = prefix_of(command)
        rules = self.permissions.rules
        options = "[y]es / [n]o"
        if rules is not None:
            options += " / [a]lways this command"
            if prefix:
                options += f' / [p]refix: always "{prefix} …"'
        answer = await self._answer(f"Allow? {options} ")
        if rules is not None and answer in {"a", "always"}:
            rules.add("exact", command.strip())
            self.console.print("[dim]always allowed in this project[/]", highlight=False)
            return True
        if rules is not None and prefix and answer in {"p", "prefix"}:
            rules.add("prefix", prefix)
            self.console.print(
                f'[dim]commands starting with "{prefix}" are allowed in this project[/]',
                highlight=False,
            )
            return True
        return answer in {"y", "yes"}

    async def _other(self, request: ApprovalRequest) -> bool:
        self.console.print(
            f"[bold yellow]The agent wants to use {request.kind}:[/] {request}", highlight=False
        )
        if request.detail:
            self.console.print(request.detail, highlight=False, markup=False)
        if request.reason:
            self.console.print(f"[yellow]  ({request.reason})[/]", highlight=False)
        rules = self.permissions.rules
        always = " / [a]lways this tool" if rules is not None else ""
        answer = await self._answer(f"Allow? [y]es / [n]o{always} ")
        if rules is not None and answer in {"a", "always"}:
            rules.add("exact", rule_key(request))
            self.console.print("[dim]always allowed in this project[/]", highlight=False)
            return True
        return answer in {"y", "yes"}
