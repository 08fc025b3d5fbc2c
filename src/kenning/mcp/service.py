"""The MCP server's core, free of protocol: a tool call in, a result written for the model out.

``KenningService`` serves one home to any number of MCP clients. It serves
the :class:`~kenning.tools.base.Tool` objects Kenning's own agent gets, built
by the same factories (``memory_tool``, ``archive_tools``,
``skill_registry_tools``), so schemas, argument checks, budgets, matching
rules and the threat scan are the same everywhere; only the descriptions are
the catalog's, written for other hosts' models. It adds what only an MCP
server needs: per-client state (each client's ``ToolContext``: its session,
provenance and turn counters), recording in the archive, read-only refusals,
and a boundary no exception crosses.

Invariants:
- Arguments are well-formed Unicode before anything sees them: a lone
  surrogate (which SQLite, git and the files cannot encode) becomes U+FFFD,
  and the result carries a ``warning`` naming the arguments that changed.
- ``call`` never raises. Bad arguments are checked against the tool's schema
  (``Tool.check``, the runtime's own checker) and answered with what the tool expects; a
  refusal says why and what to do next; an unexpected exception becomes an
  ``internal`` result and a traceback on stderr, and the server goes on.
- In read-only mode a call that would write is refused before any handler
  runs, and the handlers that do run see read-only views (``readonly.py``).
- Calls run one at a time (a lock), so the archive connection, the search
  engine and the per-client counters are never used by two threads at once.
  Other processes writing the same home are handled by the stores' own
  file locks and SQLite's, exactly as for two ``kenning chat`` sessions.
- MCP has no turns; the failure counters that stop retry loops
  (memory, skill_manage) start a new "turn" after a pause of ``TURN_GAP_S``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import secrets
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from kenning.archive.store import Archive, ArchiveError
from kenning.embed import from_config
from kenning.home import Home
from kenning.journal import JournalError
from kenning.mcp.catalog import BY_NAME, JOURNAL_SCHEMA, SKILL_LIST_SCHEMA, TOOLS, ToolDef
from kenning.mcp.readonly import READ_ONLY_NEXT_STEP, ReadOnlyArchive, ReadOnlySkillLibrary
from kenning.mcp.recorder import Peer, Recorder
from kenning.prompt import template
from kenning.safety import threats
from kenning.search.engine import SearchEngine
from kenning.skills import tool as skills_tool
from kenning.skills.agent_tools import skill_registry_tools
from kenning.skills.errors import SkillError
from kenning.skills.index import build_index
from kenning.skills.library import SkillLibrary
from kenning.tools.base import Tool, ToolContext, ToolResult, TurnState
from kenning.tools.memory_tools import archive_tools, memory_tool
from kenning.wellformed import repair, repair_data

log = logging.getLogger(__name__)

TURN_GAP_S = 120.0
SKILL_LIST_DEFAULT = 50
SKILL_LIST_MAX = 500
DESCRIPTION_CHARS = 240  # per skill in skill_list, as in the index; skill_view has the rest

Result = dict[str, Any]


def render(result: Mapping[str, Any]) -> str:
    """The text a host model reads for a result."""
    return json.dumps(result, ensure_ascii=False, default=str)


def prompt_text(name: str) -> str:
    return template(name)


@dataclass(frozen=True)
class Outcome:
    result: Result
    text: str

    @property
    def ok(self) -> bool:
        return self.result.get("success") is not False


@dataclass
class _Client:
    """One connection's state: its archive session and the context its calls run in."""

    peer: Peer
    session_id: str | None  # None when not recorded (read-only, or the archive refused)
    label: str  # provenance in commit messages and the skills read log
    ctx: ToolContext  # session_id=label, origin "via MCP (...)"; ctx.turn counts failures
    last_call: float = field(default=float("-inf"))


class KenningService:
    def __init__(
        self,
        home: Home,
        *,
        read_only: bool = False,
        transport: str = "stdio",
        workspace: str | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.home = home
        self.read_only = read_only
        self.clock = clock
        self._lock = threading.Lock()
        self.archive: Archive
        self.skills: SkillLibrary
        if read_only:
            self.archive = ReadOnlyArchive(
                home.layout.state_db, storage=home.open_storage(read_only=True)
            )
            self.skills = ReadOnlySkillLibrary.for_home(home)
        else:
            self.archive = home.archive
            self.skills = SkillLibrary.for_home(home)
        self.recorder = Recorder(
            None if read_only else self.archive, transport=transport, workspace=workspace
        )
        self._engine: SearchEngine | None = None
        self._clients: dict[str, _Client] = {}
        self._tools = self._build_tools()

    def _build_tools(self) -> dict[str, Tool]:
        """The agent's tools over this server's archive, engine and library, plus MCP's own two."""
        shared = [
            memory_tool(self.home),
            *archive_tools(self.home, archive=lambda: self.archive, engine=self._search_engine),
            *skill_registry_tools(self.home, self.skills, find=SKILL_FIND_CALL),
            Tool.from_schema(
                "journal_append",
                JOURNAL_SCHEMA,
                self._journal_append,
                read_only=False,
                description=BY_NAME["journal_append"].description,
            ),
            Tool.from_schema(
                "skill_list",
                SKILL_LIST_SCHEMA,
                self._skill_list,
                read_only=True,
                description=BY_NAME["skill_list"].description,
            ),
        ]
        by_name = {tool.name: tool for tool in shared}
        # What a host model reads is the catalog's description, written for it.
        return {
            d.name: dataclasses.replace(by_name[d.name], description=d.description) for d in TOOLS
        }

    # -- what is offered -----------------------------------------------------

    def tools(self) -> tuple[tuple[ToolDef, Tool], ...]:
        """Each offered tool: what MCP adds (title, hints) and the tool itself."""
        return tuple((definition, self._tools[definition.name]) for definition in TOOLS)

    def snapshot(self) -> str:
        """The hot-memory block a Kenning session starts with, rendered now."""
        with self._lock:
            return self.home.snapshot().render()

    def skills_index(self) -> str:
        """The skills block a Kenning session starts with, naming this server's tools."""
        with self._lock:
            index = build_index(self.skills)
        if index.text:
            # The block is written for Kenning's agent, whose search tool has another name.
            return index.text.replace(skills_tool.FIND_CALL, SKILL_FIND_CALL)
        if index.total:  # a budget too small for even one line
            return (
                f"## Skills\n{index.total:,} skills are saved: find one with "
                "skill_list(query=...) and load it with skill_view(name).\n"
            )
        return (
            "## Skills\nNo skills are saved yet. When a task needs a non-trivial method "
            "worth repeating, save it with skill_manage (action create).\n"
        )

    def skill(self, name: str) -> str | None:
        """Skill ``name``'s SKILL.md as skill_view gives it, or None when there is none."""
        with self._lock:
            try:
                return self.skills.view(name, session_id="mcp").text
            except SkillError:
                return None

    def guide(self) -> str:
        """The memory guide, then what is known now (for hosts that pin prompts, not resources)."""
        return (
            f"{prompt_text('mcp_memory_guide.md').strip()}\n\n"
            f"## What Kenning holds now\n\n{self.snapshot().strip()}\n\n"
            f"{self.skills_index().strip()}\n"
        )

    @staticmethod
    def instructions() -> str:
        return prompt_text("mcp_instructions.md").strip()

    # -- calls ---------------------------------------------------------------

    def call(
        self,
        name: str,
        args: Mapping[str, Any] | None,
        peer: Peer,
        *,
        repaired: Sequence[str] = (),
    ) -> Outcome:
        """Run one tool call for ``peer``: recorded, checked, contained. Never raises.

        ``repaired`` names arguments the transport already repaired (invalid
        Unicode it had to replace so the message would parse at all).
        """
        try:
            result = self._call(name, args, peer, repaired)
        except Exception as exc:  # the recorder or the bookkeeping around the handler
            result = internal_error(name, exc)
        # Whatever a handler read (a file, a row) must not break the answer's JSON.
        result, _ = repair_data(result)
        return Outcome(result, render(result))

    def _call(
        self, name: str, args: Mapping[str, Any] | None, peer: Peer, repaired: Sequence[str]
    ) -> Result:
        # Lone surrogates cannot be stored, committed or even encoded: repaired
        # here, before the recorder or any handler sees them, and said so.
        name = repair(name)
        raw, here = repair_data(dict(args or {}))
        repaired = [*repaired, *here]
        peer = Peer(repair(peer.key), _repaired(peer.client), _repaired(peer.version))
        with self._lock:
            client = self._client(peer)
            tool = BY_NAME.get(name)
            # Only writes are recorded (recorder.py): a read leaves no trace in the archive.
            sid = self._recording(client) if tool is not None and tool.writes(raw) else None
            call_id = f"mcp_{secrets.token_hex(6)}"
            self.recorder.call(sid, peer, call_id, name, raw)
            result = self._run(name, raw, client)
            if repaired:
                result = {**result, "warning": _repaired_warning(repaired)}
            self.recorder.result(sid, call_id, name, result)
        return result

    def _recording(self, client: _Client) -> str | None:
        """The archive session ``client``'s writes go to; its id becomes their provenance."""
        sid = self.recorder.session_for(client.peer)
        if sid is not None and sid != client.session_id:
            client.session_id = sid
            client.label = sid
            client.ctx.session_id = sid
        return sid

    def close(self, reason: str = "server stopped") -> None:
        """End the archive sessions (``reason`` is stored with them) and close the database."""
        with self._lock:
            self.recorder.close(reason)
            self.archive.close()
            self._engine = None

    def _run(self, name: str, raw: Result, client: _Client) -> Result:
        definition, tool = BY_NAME.get(name), self._tools.get(name)
        if definition is None or tool is None:
            return {
                "success": False,
                "error": "unknown_tool",
                "message": f"Kenning has no tool named {name!r}.",
                "next_step": f"Use one of: {', '.join(t.name for t in TOOLS)}.",
            }
        args, refused = tool.check(raw)
        if refused is not None:
            return _as_result(refused)
        if self.read_only and definition.writes(args):
            return {
                "success": False,
                "error": "read_only",
                "done": True,
                "message": f"{name} was refused: this Kenning server is read-only (started with "
                "--read-only). Nothing was written.",
                "next_step": READ_ONLY_NEXT_STEP,
            }
        now = self.clock()
        if now - client.last_call > TURN_GAP_S:
            client.ctx.turn = TurnState()  # the failure counters that stop retry loops
        client.last_call = now
        if self.read_only and name in _LISTED_BY and (empty := self._no_archive()):
            return {**empty, _LISTED_BY[name]: []}
        if not isinstance(self.archive, ReadOnlyArchive):
            return self._handle(tool, args, client)
        result = self._handle(tool, args, client)
        if not self.archive.settle():  # a writer checkpointed under an immutable read
            result = self._handle(tool, args, client)
            self.archive.settle()
        return result

    def _handle(self, tool: Tool, args: Result, client: _Client) -> Result:
        name = tool.name
        try:
            # Calls run one at a time (the service's lock), in this worker thread.
            return _as_result(asyncio.run(tool.invoke(args, client.ctx)))
        except ArchiveError as exc:  # says why and what to do; not a bug
            return {
                "success": False,
                "error": "archive_unavailable",
                "message": f"{name} could not read the archive: {exc}",
                "next_step": "Tell the user what the message says. Meanwhile memory, "
                "memory_get and the skill tools still work.",
            }
        except Exception as exc:
            return internal_error(name, exc)

    def _client(self, peer: Peer) -> _Client:
        client = self._clients.get(peer.key)
        if client is None:
            sid = None  # until its first write (_recording)
            label = f"mcp-{secrets.token_hex(4)}"
            via = f"via MCP ({peer.label()})"
            # cwd: the home, not the server process's folder (which may be gone).
            ctx = ToolContext(
                self.home, cwd=self.home.root, session_id=label, purpose="mcp", origin=via
            )
            client = _Client(peer, sid, label, ctx)
            self._clients[peer.key] = client
        return client

    def _search_engine(self) -> SearchEngine:
        if self._engine is None:
            if self.read_only:
                # No embedding cache here: it lives in state.db and would be written.
                self._engine = SearchEngine(
                    self.archive,
                    from_config(self.home.config.embedding),
                    self.home.config.search,
                    layout=self.home.layout,
                    record_recalls=False,
                )
            else:
                self._engine = self.home.search
        return self._engine

    # -- MCP's own tools ---------------------------------------------------

    def _no_archive(self) -> Result | None:
        if self.home.has_archive:
            return None
        return {
            "success": True,
            "message": "This Kenning home has no archive or search index yet: nothing has been "
            "recorded or indexed.",
            "next_step": "Use memory (action show) or memory_get for the memory files.",
        }

    def _journal_append(self, args: Result, ctx: ToolContext) -> Result:
        why = str(args.get("reason") or "").strip()
        reason = why or ctx.provenance("journal_append")
        try:
            done = self.home.journal.append(str(args["text"]), source="mcp", reason=reason)
        except JournalError as exc:
            return {
                "success": False,
                "error": "refused",
                "message": str(exc),
                "next_step": "Nothing was written. Change what the message names and call "
                "journal_append again, or skip the note.",
            }
        where = done.path.relative_to(self.home.layout.root)
        return {
            "success": True,
            "done": True,
            "message": f"Appended to {where} under '{done.heading.lstrip('# ')}'. Kenning's agent "
            "sees it today and tomorrow; memory_search finds it later. Done — do not repeat it.",
            "path": str(where),
        }

    def _skill_list(self, args: Result, ctx: ToolContext) -> Result:
        limit = min(max(int(args.get("limit") or SKILL_LIST_DEFAULT), 1), SKILL_LIST_MAX)
        query = str(args.get("query") or "").strip()
        if query:
            hits = skills_tool.search(self.skills, query, limit=limit)
            for hit in hits:
                hit["description"] = _shown(str(hit["description"]))
            if not hits:
                return {
                    "success": True,
                    "skills": [],
                    "message": "No skill matches these words.",
                    "next_step": "Try other words, or work the task out and save the method with "
                    "skill_manage if it will recur.",
                }
            return {
                "success": True,
                "query": query,
                "skills": hits,
                "next_step": "Load one with skill_view(name) if it fits the task.",
            }
        listed: list[Result] = []
        for info in self.skills.list_skills():
            if info.meta is None:
                listed.append({"name": info.name, "problem": f"SKILL.md unreadable: {info.error}"})
                continue
            listed.append(
                {
                    "name": info.name,
                    "description": _shown(info.description),
                    "tags": list(info.tags),
                    "status": info.status,
                }
            )
        if not listed:
            return {
                "success": True,
                "skills": [],
                "message": "No skills are saved yet.",
                "next_step": "When a task needs a non-trivial method worth repeating, save it "
                "with skill_manage (action create).",
            }
        result: Result = {"success": True, "total": len(listed), "skills": listed[:limit]}
        if len(listed) > limit:
            result["omitted"] = len(listed) - limit
            result["next_step"] = "Pass query (words describing the task) to see the best matches."
        else:
            result["next_step"] = "Load one whose description fits the task with skill_view(name)."
        return result


# How hints over MCP say to find a skill by words: MCP has skill_list, not skills_search.
SKILL_FIND_CALL = "skill_list(query=...)"

# Read-only, on a home without state.db: these answer "nothing yet" under this key.
_LISTED_BY = {"memory_search": "passages", "session_search": "sessions"}


def _as_result(result: ToolResult) -> Result:
    """A tool's result as the JSON object an MCP client receives."""
    if result.data is not None:
        return dict(result.data)
    return {"success": result.ok, "message": result.text}


def internal_error(name: str, exc: BaseException) -> Result:
    """The result for an exception no handler expected (logged with its traceback)."""
    log.error("MCP tool %s failed", name, exc_info=exc)
    return {
        "success": False,
        "error": "internal",
        "message": f"{name} failed inside Kenning ({type(exc).__name__}: {exc}). "
        "Its effect, if any, is unknown.",
        "next_step": "Check the current state (e.g. memory show) before retrying once; "
        "if it fails again, carry on without it and tell the user.",
    }


def _repaired(text: str | None) -> str | None:
    return None if text is None else repair(text)


def _repaired_warning(places: list[str]) -> str:
    return (
        "The arguments held invalid Unicode (lone UTF-16 surrogates, e.g. half of an emoji) "
        f"in {', '.join(places)}; each was replaced with U+FFFD (�) "
        "before the call ran. Send well-formed text if the exact characters matter."
    )


def _shown(description: str) -> str:
    """A description as the index shows it: one line, capped, and scanned."""
    text = " ".join(description.split())
    if len(text) > DESCRIPTION_CHARS:
        text = text[: DESCRIPTION_CHARS - 1].rstrip() + "…"
    return threats.neutralise(text, "script")
