"""``kenning chat``'s application: the prompt loop, a turn on screen, approvals.

prompt_toolkit gives line editing (multi-line, completion, history kept in
the home's cache) and a bottom toolbar (model, permission mode, session,
context use, tokens and cost); rich renders the streamed answer as Markdown,
tool calls one line each with a command's output folded, and a transient
status line (spinner, step, elapsed time, tokens) while the agent works.
Ctrl-C during a turn stops the turn cleanly (the transcript is saved); at
the prompt it clears the line; Ctrl-D or /exit leaves.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from prompt_toolkit import PromptSession
from rich.console import Console
from rich.live import Live
from rich.markdown import Markdown
from rich.text import Text

from kenning.agent.events import (
    ModelReplied,
    Notice,
    TextChunk,
    ToolFinished,
    ToolStarted,
    TurnEnded,
    describe_call,
)
from kenning.agent.loop import AgentSession
from kenning.chat.approvals import Approvals
from kenning.chat.checkpoints import Checkpoints
from kenning.chat.commands import SlashCommands
from kenning.chat.input import chat_prompt, quiet_terminal
from kenning.chat.status import Meter, TurnStatus
from kenning.home import Home
from kenning.learning import runner_for, take_notices
from kenning.mcp.servers import configured_servers
from kenning.models.local import is_loopback, list_models, start_hint
from kenning.models.pricing import LOCAL_PROVIDERS, Price, price_for
from kenning.models.types import Model
from kenning.runtime.factory import open_session
from kenning.tools.permissions import Mode, Permissions, ProjectRules

if TYPE_CHECKING:
    from kenning.mcp.toolset import McpToolset

FOLDED_LINES = 6  # lines of a command's output shown under it; /expand shows the rest
RECAP_EXCHANGES = 3


def price_of(model: Model) -> Price | None:
    provider = str(getattr(model, "provider", ""))
    local = provider in LOCAL_PROVIDERS or is_loopback(str(getattr(model, "base_url", "")))
    return price_for(str(getattr(model, "model", model.name)), local=local)


class ChatApp:
    def __init__(
        self, home: Home, session: AgentSession, console: Console, mode: Mode = "ask"
    ) -> None:
        self.home = home
        self.session = session
        self.console = console
        self.last_output = ""
        self.last_text = ""
        self.meter = Meter(price_of(session.model))
        self.status = TurnStatus(console, self.meter)
        self.checkpoints = Checkpoints()
        self.permissions = Permissions(
            mode,
            rules=ProjectRules(self.home.root, session.cwd),
            before_write=self.checkpoints.record,
        )
        self.approvals = Approvals(
            console, self.permissions, self._ask_line, pause=self.status.hide
        )
        self.permissions.on_applied = self.approvals.show_applied
        self.commands: dict[str, Callable[[str], Awaitable[bool]]] = SlashCommands(self).table()
        self.mcp: McpToolset | None = None
        self.prompt: PromptSession[str] = chat_prompt(
            self.home.root / "cache" / "chat_history", list(self.commands), session.cwd
        )
        self._adopt(session)

    def toolbar(self) -> str:
        s = self.session
        engine = s.context_engine
        if engine is not None:
            st = engine.status(s)
            usage = f"context {st.tokens:,}/{st.usable:,} ({100 * st.share:.0f}%)"
            if st.compactions:
                usage += f" · compacted ×{st.compactions}"
        else:
            usage = f"context {s.context_tokens:,}/{s.model.context_window:,}"
        return (
            f" {s.model.name} · {self.permissions.mode} · session {s.session_id} · {usage}"
            f" · {self.meter.short()}"
        )

    def _adopt(self, session: AgentSession) -> None:
        """Make ``session`` ask through this chat and follow its permission mode."""
        session.approve = self.approvals
        session.extras["permissions"] = self.permissions
        if self.mcp is not None:
            self.mcp.register(session.tools)

    async def _ask_line(self, prompt: str) -> str:
        return await PromptSession[str]().prompt_async(prompt)

    def _open(self, **kwargs: object) -> AgentSession:
        session = open_session(self.home, source="cli", **kwargs)  # type: ignore[arg-type]
        self._adopt(session)
        return session

    def server_down(self) -> str:
        """Said at the start when the model's server on this machine is not running."""
        model = self.session.model
        base_url = str(getattr(model, "base_url", ""))
        if not is_loopback(base_url) or list_models(base_url) is not None:
            return ""
        provider = str(getattr(model, "provider", ""))
        hint = start_hint(provider, base_url, str(getattr(model, "model", "")))
        return f"{model.name}: nothing is listening at {base_url}; {hint}"

    def use_model(self, model: Model) -> None:
        self.session.model = model
        self.meter.price = price_of(model)

    async def main(self) -> None:
        self.console.print(
            f"[bold]kenning[/] · {self.session.model.name} · {self.permissions.mode} · "
            f"session {self.session.session_id} — /help for commands, Alt-Enter for a new "
            "line, Ctrl-D to leave"
        )
        note = getattr(self.session.model, "window_note", "") or self.server_down()
        if note:
            self.console.print(f"[yellow]{note}[/]", highlight=False)
        self.recap()
        await self.start_mcp()
        try:
            await self._loop()
        finally:
            if self.mcp is not None:
                await self.mcp.close()

    async def start_mcp(self) -> None:
        """Start the [mcp.servers] of config.toml and offer their tools to the agent."""
        specs, problems = configured_servers(self.home.layout.config_file)
        for problem in problems:
            self.console.print(f"[yellow]{problem}[/]", highlight=False)
        if not specs:
            return
        # The MCP client SDK is imported only when servers are configured: it is
        # a second of CPU at start that a chat without them does not need.
        from kenning.mcp.toolset import McpToolset

        self.status.begin()
        self.status.show(f"starting {len(specs)} MCP server(s)")
        toolset = McpToolset(specs)
        try:
            await toolset.start()
        finally:
            self.status.hide()
        for problem in toolset.problems:
            self.console.print(f"[yellow]{problem}[/]", highlight=False)
        self.mcp = toolset
        names = toolset.register(self.session.tools)
        for server in toolset.connected:
            count = sum(1 for n in names if n.startswith(f"mcp__{server.spec.name}__"))
            self.console.print(f"[dim]MCP {server.spec.name}: {count} tool(s)[/]", highlight=False)

    async def _loop(self) -> None:
        while True:
            self.show_review_notices()
            try:
                text = await self.prompt.prompt_async("› ", bottom_toolbar=self.toolbar)
            except KeyboardInterrupt:
                continue
            except EOFError:
                break
            text = text.strip()
            if not text:
                continue
            if text.startswith("/") and "\n" not in text:
                name, _, rest = text.partition(" ")
                handler = self.commands.get(name)
                if handler is None:
                    self.console.print(f"unknown command {name}; /help lists them")
                    continue
                if not await handler(rest.strip()):
                    break
                continue
            await self.turn(text)
        await self.leave(self.session, "user_exit")

    def recap(self) -> None:
        """For a resumed session: its goal (the first request) and the last exchanges."""
        messages = [e.message for e in self.session.transcript.entries]
        asked = [m for m in messages if m.role == "user"]
        if not asked:
            return
        goal = _line(asked[0].content, 160)
        self.console.print(Text(f"resumed {len(messages)} messages · goal: {goal}", style="bold"))
        exchanges: list[tuple[str, str]] = []
        for m in messages:
            if m.role == "user":
                exchanges.append((m.content, ""))
            elif m.role == "assistant" and m.content.strip() and exchanges:
                exchanges[-1] = (exchanges[-1][0], m.content)
        for question, answer in exchanges[-RECAP_EXCHANGES:]:
            self.console.print(Text(f"  you: {_line(question, 110)}", style="dim"))
            said = _line(answer, 110) if answer else "(no answer)"
            self.console.print(Text(f"  kenning: {said}", style="dim"))

    def show_review_notices(self) -> None:
        """One line per finished background review (printed between turns, never mid-prompt)."""
        for notice in take_notices(self.session):
            self.console.print(f"[dim]{notice.text}[/]", highlight=False)

    async def leave(self, session: AgentSession, reason: str) -> None:
        runner = runner_for(session)
        if runner is not None and runner.running:
            self.console.print("[dim]finishing the background review…[/]")
        await session.close(reason)
        if session is self.session:
            self.show_review_notices()

    async def turn(self, text: str) -> None:
        self.last_text = text
        loop = asyncio.get_running_loop()
        task = asyncio.create_task(self._render_turn(text))
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(signal.SIGINT, task.cancel)
        try:
            with quiet_terminal():
                await task
        except asyncio.CancelledError:
            self.console.print("[yellow]interrupted[/] — the transcript so far is saved")
        finally:
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.remove_signal_handler(signal.SIGINT)

    async def _render_turn(self, text: str) -> None:
        buffer = ""
        live: Live | None = None
        started = time.monotonic()
        self.checkpoints.begin_turn()
        self.meter.turns += 1
        self.status.begin()
        self.status.show("waiting for the model")
        try:
            async for event in self.session.turn(text):
                if isinstance(event, TextChunk):
                    buffer += event.text
                    if live is None:
                        self.status.hide()
                        live = Live(
                            console=self.console, refresh_per_second=8, vertical_overflow="visible"
                        )
                        live.start()
                    live.update(Markdown(buffer))
                    continue
                if live is not None:
                    live.stop()
                    live, buffer = None, ""
                self._show_event(event)
        finally:
            self.status.hide()
            if live is not None:
                live.stop()
        seconds = time.monotonic() - started
        self.console.print(f"[dim]· {seconds:.1f} s · {self.meter.short()}[/]", highlight=False)

    def _show_event(self, event: object) -> None:
        status = self.status
        if isinstance(event, ModelReplied):
            self.meter.add(event.usage)
            if event.tool_calls:
                status.show("running tools")
        elif isinstance(event, ToolStarted):
            status.hide()
            self.console.print(f"[dim]→ {describe_call(event.call)}[/]", highlight=False)
            status.show(f"running {event.call.name}")
        elif isinstance(event, ToolFinished):
            status.hide()
            self.show_result(event)
            status.show("waiting for the model")
        elif isinstance(event, Notice):
            status.hide()
            self.console.print(f"[yellow]{event.text}[/]", highlight=False)
            if "context was reduced" in event.text:
                status.show("compacting")
        elif isinstance(event, TurnEnded) and not event.ok:
            status.hide()
            self.console.print(f"[red]{event.error or event.reason}[/]", highlight=False)

    def show_result(self, event: ToolFinished) -> None:
        """A failure's first line; a command's output folded to its first lines."""
        self.last_output = event.result
        if not event.ok:
            first = (event.result.splitlines() or ["failed"])[0]
            self.console.print(f"[red dim]  ✗ {first[:200]}[/]", highlight=False)
        if event.call.name != "shell" or (not event.ok and event.result.startswith("Error:")):
            return
        lines = event.result.splitlines()
        for line in lines[:FOLDED_LINES]:
            self.console.print(Text(f"  │ {line[:200]}", style="dim"))
        if len(lines) > FOLDED_LINES:
            more = len(lines) - FOLDED_LINES
            self.console.print(f"[dim]  │ … {more} more lines (/expand)[/]", highlight=False)


def _line(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
