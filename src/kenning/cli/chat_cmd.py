"""``kenning chat``: the interactive REPL.

prompt_toolkit gives line editing, history (kept in the home's cache) and a
status line (model, session, context usage); rich renders the streamed
answer as Markdown and tool calls compactly. Ctrl-C during a turn stops the
turn cleanly (the transcript is saved); at the prompt it clears the line;
Ctrl-D or /exit leaves. Slash commands are listed by /help.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

import click
from prompt_toolkit import PromptSession
from prompt_toolkit.history import FileHistory, InMemoryHistory
from rich.console import Console
from rich.live import Live
from rich.markdown import Markdown
from rich.text import Text

from kenning.agent.events import Notice, TextChunk, ToolFinished, ToolStarted, TurnEnded
from kenning.agent.loop import AgentSession
from kenning.chat.approvals import Approvals
from kenning.cli.context import CliState, pass_state
from kenning.cli.run_cmd import EXIT_NOT_CONFIGURED, describe_call, open_or_explain
from kenning.context.engine import compact_now
from kenning.context.transcript import TranscriptError
from kenning.learning import describe, review_now, runner_for, take_notices
from kenning.models.errors import ModelError, ModelNotConfigured
from kenning.models.registry import resolve_model
from kenning.runtime.factory import open_session
from kenning.tools.permissions import MODE_HELP, MODES, Mode, Permissions, ProjectRules, parse_mode

HELP = """\
/new              start a new session (this one stays searchable)
/resume [ID]      resume a session (without ID: list recent ones)
/sessions         recent sessions
/search QUERY     search the archive and memory files
/memory           show hot memory as it is now
/skills           the skills index
/model [MODEL]    show or switch the model
/mode [MODE]      show or switch the permission mode: ask, auto-edit, plan, yolo
/expand           the last tool output in full
/review           look back now and keep what will help (memory, skills)
/compact          summarise the older part of this session now (it stays searchable)
/help             this list
/exit             leave (Ctrl-D works too)"""


FOLDED_LINES = 6  # lines of a command's output shown under it; /expand shows the rest


class ChatApp:
    def __init__(
        self, state: CliState, session: AgentSession, console: Console, mode: Mode = "ask"
    ) -> None:
        self.state = state
        self.home = state.home()
        self.session = session
        self.console = console
        self.last_output = ""
        self.permissions = Permissions(mode, rules=ProjectRules(self.home.root, session.cwd))
        self.approvals = Approvals(console, self.permissions, self._ask_line)
        self.permissions.on_applied = self.approvals.show_applied
        history_file = self.home.root / "cache" / "chat_history"
        try:
            history_file.parent.mkdir(parents=True, exist_ok=True)
            history: FileHistory | InMemoryHistory = FileHistory(str(history_file))
        except OSError:
            history = InMemoryHistory()
        self.prompt: PromptSession[str] = PromptSession(history=history)
        self._adopt(session)
        self.commands: dict[str, Callable[[str], Awaitable[bool]]] = {
            "/new": self.cmd_new,
            "/resume": self.cmd_resume,
            "/sessions": self.cmd_sessions,
            "/search": self.cmd_search,
            "/memory": self.cmd_memory,
            "/skills": self.cmd_skills,
            "/model": self.cmd_model,
            "/compact": self.cmd_compact,
            "/mode": self.cmd_mode,
            "/expand": self.cmd_expand,
            "/review": self.cmd_review,
            "/help": self.cmd_help,
            "/exit": self.cmd_exit,
            "/quit": self.cmd_exit,
        }

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
        return f" {s.model.name} · {self.permissions.mode} · session {s.session_id} · {usage}"

    def _adopt(self, session: AgentSession) -> None:
        """Make ``session`` ask through this chat and follow its permission mode."""
        session.approve = self.approvals
        session.extras["permissions"] = self.permissions

    async def _ask_line(self, prompt: str) -> str:
        return await PromptSession[str]().prompt_async(prompt)

    async def main(self) -> None:
        self.console.print(
            f"[bold]kenning[/] · {self.session.model.name} · session {self.session.session_id}"
            " — /help for commands, Ctrl-D to leave"
        )
        note = getattr(self.session.model, "window_note", "")
        if note:
            self.console.print(f"[yellow]{note}[/]", highlight=False)
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
            if text.startswith("/"):
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
        loop = asyncio.get_running_loop()
        task = asyncio.create_task(self._render_turn(text))
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(signal.SIGINT, task.cancel)
        try:
            await task
        except asyncio.CancelledError:
            self.console.print("\n[yellow]interrupted[/] — the transcript so far is saved")
        finally:
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.remove_signal_handler(signal.SIGINT)

    async def _render_turn(self, text: str) -> None:
        buffer = ""
        live: Live | None = None
        try:
            async for event in self.session.turn(text):
                if isinstance(event, TextChunk):
                    buffer += event.text
                    if live is None:
                        live = Live(
                            console=self.console, refresh_per_second=8, vertical_overflow="visible"
                        )
                        live.start()
                    live.update(Markdown(buffer))
                    continue
                if live is not None:
                    live.stop()
                    live, buffer = None, ""
                if isinstance(event, ToolStarted):
                    self.console.print(f"[dim]→ {describe_call(event.call)}[/]", highlight=False)
                elif isinstance(event, ToolFinished):
                    self.show_result(event)
                elif isinstance(event, Notice):
                    self.console.print(f"[yellow]{event.text}[/]", highlight=False)
                elif isinstance(event, TurnEnded) and not event.ok:
                    self.console.print(f"[red]{event.error or event.reason}[/]", highlight=False)
        finally:
            if live is not None:
                live.stop()

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

    # -- slash commands (return False to leave) -----------------------------

    async def cmd_new(self, _: str) -> bool:
        await self.leave(self.session, "new_session")
        self.session = self._open(model=self.session.model)
        self.console.print(f"new session {self.session.session_id}")
        return True

    async def cmd_resume(self, arg: str) -> bool:
        if not arg:
            return await self.cmd_sessions("")
        try:
            resumed = self._open(model=self.session.model, resume=arg)
        except TranscriptError as exc:
            self.console.print(f"[red]{exc}[/]")
            return True
        await self.leave(self.session, "switched")
        self.session = resumed
        count = len(resumed.transcript.entries)
        self.console.print(f"resumed {resumed.session_id} ({count} messages)")
        return True

    async def cmd_sessions(self, _: str) -> bool:
        for s in self.home.archive.sessions(limit=10):
            title = (s.title or "").replace("\n", " ")[:60]
            self.console.print(
                f"{s.id}  {s.source:<8} {s.message_count:>4} msgs  {title}", highlight=False
            )
        return True

    async def cmd_search(self, query: str) -> bool:
        if not query:
            self.console.print("usage: /search QUERY")
            return True
        result = self.home.search.search(query, limit=5)
        if not result.hits:
            self.console.print("no matches")
        for hit in result.hits:
            snippet = " ".join((hit.content or hit.text or "").split())[:160]
            where = hit.session_id or f"{hit.path}:{hit.line_start}"
            self.console.print(f"[bold]{where}[/] {snippet}", highlight=False)
        return True

    async def cmd_memory(self, _: str) -> bool:
        self.console.print(self.home.snapshot().render(), highlight=False, markup=False)
        return True

    async def cmd_skills(self, _: str) -> bool:
        from kenning.prompt.system import skills_block

        text = skills_block(self.home)(None).strip() or "(no skills yet)"
        self.console.print(text, highlight=False, markup=False)
        return True

    async def cmd_model(self, arg: str) -> bool:
        if not arg:
            self.console.print(self.session.model.name)
            return True
        try:
            self.session.model = resolve_model(arg, self.home.config.model)
        except (ModelNotConfigured, ModelError, ValueError) as exc:
            self.console.print(f"[red]{exc}[/]")
            return True
        self.console.print(f"model: {self.session.model.name}")
        return True

    async def cmd_mode(self, arg: str) -> bool:
        if arg:
            try:
                self.permissions.mode = parse_mode(arg)
            except ValueError as exc:
                self.console.print(f"[red]{exc}[/]", highlight=False)
                return True
        mode = self.permissions.mode
        self.console.print(f"mode: {mode} — {MODE_HELP[mode]}", highlight=False)
        return True

    async def cmd_expand(self, _: str) -> bool:
        self.console.print(
            self.last_output or "(no tool output yet)", highlight=False, markup=False
        )
        return True

    async def cmd_compact(self, _: str) -> bool:
        try:
            report = await compact_now(self.session)
        except (ModelError, ValueError) as exc:
            self.console.print(f"[red]compaction failed: {exc}[/]", highlight=False)
            return True
        self.console.print(report.describe(), highlight=False, markup=False)
        return True

    async def cmd_review(self, _: str) -> bool:
        self.console.print("[dim]reviewing this session…[/]")
        report = await review_now(self.session)
        self.console.print(describe(report), highlight=False, markup=False)
        return True

    async def cmd_help(self, _: str) -> bool:
        self.console.print(HELP, highlight=False, markup=False)
        return True

    async def cmd_exit(self, _: str) -> bool:
        return False

    def _open(self, **kwargs: object) -> AgentSession:
        session = open_session(self.home, source="cli", **kwargs)  # type: ignore[arg-type]
        self._adopt(session)
        return session


@click.command("chat")
@click.option(
    "--model", "-m", metavar="MODEL", help="provider:model, e.g. anthropic:claude-sonnet-4-5."
)
@click.option("--resume", metavar="SESSION", help="Resume an archived session.")
@click.option("--continue", "continue_last", is_flag=True, help="Resume the latest chat session.")
@click.option(
    "--cwd",
    type=click.Path(file_okay=False, exists=True, path_type=Path),
    help="Working directory for the tools (default: here).",
)
@click.option(
    "--mode",
    type=click.Choice(MODES),
    default="ask",
    show_default=True,
    help="Permissions: ask (edits show a diff and ask, shell asks), auto-edit (edits "
    "applied and shown), plan (read-only tools only), yolo (nothing asks).",
)
@pass_state
def chat_command(
    state: CliState,
    model: str | None,
    resume: str | None,
    continue_last: bool,
    cwd: Path | None,
    mode: str,
) -> None:
    """Talk with the agent in this terminal.

    \b
    Examples:
      kenning chat --model openai:gpt-4.1-mini
      kenning chat --continue
    """
    session = open_or_explain(
        state, model=model, source="cli", cwd=cwd, resume=resume, continue_last=continue_last
    )
    app = ChatApp(state, session, Console(highlight=False), parse_mode(mode))
    try:
        asyncio.run(app.main())
    except KeyboardInterrupt:
        sys.exit(130)


__all__ = ["EXIT_NOT_CONFIGURED", "ChatApp", "chat_command"]
