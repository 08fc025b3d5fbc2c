"""The chat's slash commands; each returns False to leave the chat."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from kenning.context.engine import compact_now
from kenning.context.transcript import TranscriptError
from kenning.learning import describe, review_now
from kenning.models.errors import ModelError, ModelNotConfigured
from kenning.models.registry import resolve_model
from kenning.tools.permissions import MODE_HELP, parse_mode

if TYPE_CHECKING:
    from kenning.chat.app import ChatApp

HELP = """\
/new              start a new session (this one stays searchable)
/resume [ID]      resume a session (without ID: list recent ones)
/sessions         recent sessions
/retry            send your last message again
/undo             restore the files the last turn edited
/init             look at the project and write AGENTS.md for agents working in it
/cost             tokens and cost of this chat
/search QUERY     search the archive and memory files
/memory           show hot memory as it is now
/skills           the skills index
/model [MODEL]    show or switch the model
/mode [MODE]      show or switch the permission mode: ask, auto-edit, plan, yolo
/expand           the last tool output in full
/review           look back now and keep what will help (memory, skills)
/goal GOAL [--check CMD]  work on GOAL in turns until done (see kenning run --goal)
/compact          summarise the older part of this session now (it stays searchable)
/help             this list
/exit             leave (Ctrl-D works too)
Enter sends; Alt-Enter (or Esc, Enter) starts a new line; Tab completes commands and paths."""

INIT_PROMPT = """\
Write an AGENTS.md for this project, for coding agents that will work in it.
First look around with the read-only tools: the README, the build and package
files, the folder layout, the tests, CI configuration, and a few source files
for conventions. Then write AGENTS.md at the project root with write_file:
what the project is (two sentences), how to set it up, build, test and lint it
(exact commands), the layout (the main folders and what is in each), and the
conventions you can see in the code. Under 60 lines; only facts you checked.
If AGENTS.md already exists, read it and improve it rather than starting over."""


class SlashCommands:
    """The commands of one chat; they act on its app (session, console, permissions)."""

    def __init__(self, app: ChatApp) -> None:
        self.app = app

    def table(self) -> dict[str, Callable[[str], Awaitable[bool]]]:
        return {
            "/new": self.cmd_new,
            "/resume": self.cmd_resume,
            "/sessions": self.cmd_sessions,
            "/retry": self.cmd_retry,
            "/undo": self.cmd_undo,
            "/init": self.cmd_init,
            "/cost": self.cmd_cost,
            "/search": self.cmd_search,
            "/memory": self.cmd_memory,
            "/skills": self.cmd_skills,
            "/model": self.cmd_model,
            "/mode": self.cmd_mode,
            "/expand": self.cmd_expand,
            "/compact": self.cmd_compact,
            "/review": self.cmd_review,
            "/goal": self.cmd_goal,
            "/help": self.cmd_help,
            "/exit": self.cmd_exit,
            "/quit": self.cmd_exit,
        }

    async def cmd_new(self, _: str) -> bool:
        await self.app.leave(self.app.session, "new_session")
        self.app.session = self.app._open(model=self.app.session.model)
        self.app.console.print(f"new session {self.app.session.session_id}")
        return True

    async def cmd_resume(self, arg: str) -> bool:
        if not arg:
            return await self.cmd_sessions("")
        try:
            resumed = self.app._open(model=self.app.session.model, resume=arg)
        except TranscriptError as exc:
            self.app.console.print(f"[red]{exc}[/]")
            return True
        await self.app.leave(self.app.session, "switched")
        self.app.session = resumed
        self.app.console.print(f"resumed {resumed.session_id}")
        self.app.recap()
        return True

    async def cmd_sessions(self, _: str) -> bool:
        for s in self.app.home.archive.sessions(limit=10):
            title = (s.title or "").replace("\n", " ")[:60]
            self.app.console.print(
                f"{s.id}  {s.source:<8} {s.message_count:>4} msgs  {title}", highlight=False
            )
        return True

    async def cmd_retry(self, _: str) -> bool:
        text = self.app.last_text or next(
            (
                e.message.content
                for e in reversed(self.app.session.transcript.entries)
                if e.message.role == "user"
            ),
            "",
        )
        if not text:
            self.app.console.print("nothing to retry yet")
            return True
        self.app.console.print(f"[dim]again: {text[:120]}[/]", highlight=False)
        await self.app.turn(text)
        return True

    async def cmd_undo(self, _: str) -> bool:
        done = self.app.checkpoints.undo()
        if not done:
            self.app.console.print("nothing to undo: no turn of this chat has edited a file")
            return True
        for line in done:
            self.app.console.print(line, highlight=False, markup=False)
        self.app.console.print(
            "[dim](what shell commands changed is not undone; the agent is not told — "
            "say so if it should know)[/]"
        )
        return True

    async def cmd_init(self, _: str) -> bool:
        await self.app.turn(INIT_PROMPT)
        return True

    async def cmd_cost(self, _: str) -> bool:
        self.app.console.print(self.app.meter.report(), highlight=False, markup=False)
        return True

    async def cmd_search(self, query: str) -> bool:
        if not query:
            self.app.console.print("usage: /search QUERY")
            return True
        result = self.app.home.search.search(query, limit=5)
        if not result.hits:
            self.app.console.print("no matches")
        for hit in result.hits:
            snippet = " ".join((hit.content or hit.text or "").split())[:160]
            where = hit.session_id or f"{hit.path}:{hit.line_start}"
            self.app.console.print(f"[bold]{where}[/] {snippet}", highlight=False)
        return True

    async def cmd_memory(self, _: str) -> bool:
        self.app.console.print(self.app.home.snapshot().render(), highlight=False, markup=False)
        return True

    async def cmd_skills(self, _: str) -> bool:
        from kenning.prompt.system import skills_block

        text = skills_block(self.app.home)(None).strip() or "(no skills yet)"
        self.app.console.print(text, highlight=False, markup=False)
        return True

    async def cmd_model(self, arg: str) -> bool:
        if not arg:
            self.app.console.print(self.app.session.model.name)
            return True
        try:
            self.app.use_model(resolve_model(arg, self.app.home.config.model))
        except (ModelNotConfigured, ModelError, ValueError) as exc:
            self.app.console.print(f"[red]{exc}[/]")
            return True
        self.app.console.print(f"model: {self.app.session.model.name}")
        return True

    async def cmd_mode(self, arg: str) -> bool:
        if arg:
            try:
                self.app.permissions.mode = parse_mode(arg)
            except ValueError as exc:
                self.app.console.print(f"[red]{exc}[/]", highlight=False)
                return True
        mode = self.app.permissions.mode
        self.app.console.print(f"mode: {mode} — {MODE_HELP[mode]}", highlight=False)
        return True

    async def cmd_expand(self, _: str) -> bool:
        shown = self.app.last_output or "(no tool output yet)"
        self.app.console.print(shown, highlight=False, markup=False)
        return True

    async def cmd_compact(self, _: str) -> bool:
        self.app.status.show("compacting")
        try:
            report = await compact_now(self.app.session)
        except (ModelError, ValueError) as exc:
            self.app.console.print(f"[red]compaction failed: {exc}[/]", highlight=False)
            return True
        finally:
            self.app.status.hide()
        self.app.console.print(report.describe(), highlight=False, markup=False)
        return True

    async def cmd_review(self, _: str) -> bool:
        self.app.status.show("reviewing")
        try:
            report = await review_now(self.app.session)
        finally:
            self.app.status.hide()
        self.app.console.print(describe(report), highlight=False, markup=False)
        return True

    async def cmd_goal(self, arg: str) -> bool:
        from kenning.chat.goal import chat_goal  # goal mode lives outside the chat loop

        await chat_goal(self.app.session, self.app.console, arg)
        return True

    async def cmd_help(self, _: str) -> bool:
        self.app.console.print(HELP, highlight=False, markup=False)
        return True

    async def cmd_exit(self, _: str) -> bool:
        return False
