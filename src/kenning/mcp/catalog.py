"""What the MCP server tells a host model about its tools: descriptions, titles and hints.

The tools themselves are Kenning's :class:`kenning.tools.base.Tool` objects,
built by the same factories as the agent's (``tools/memory_tools.py``,
``skills/agent_tools.py``), so a host model and Kenning's agent fill in the
same arguments under the same schema, checked by the same checker; like
those, the schemas use no ``oneOf``/``anyOf``, which some hosts reject. Only
``journal_append`` and ``skill_list`` are MCP's own (their schemas are here).

The descriptions are written for a model that has never heard of Kenning: each
says what Kenning is in a clause, what the tool is for, when to call it and
what not to store.

Invariant: a tool that can change the home says so in ``writes`` (per call,
since ``memory`` both reads and writes); the server's read-only mode refuses
exactly those calls before any handler runs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from kenning.memory import tool as memory_tool

# Said once per description, so a model meeting any one tool knows what it is.
_KENNING = (
    "Kenning is the user's long-term memory, shared by their AI tools (this one, Kenning's own "
    "agent, other editors and CLIs connected to it)."
)

MEMORY = f"""\
{_KENNING} This tool reads and writes its hot memory: two small files of durable facts that \
every future session starts with.

Targets:
- "user" (USER.md): who the user is — preferences, corrections they gave you, working style.
- "memory" (MEMORY.md): notes about the environment — project conventions, tool quirks, \
facts about their setup.

Call it when the user states a preference or corrects you, shares something about \
themselves that will matter again, or you learn a stable fact about their environment. \
Priority: preferences and corrections > environment facts > everything else.

Write short declarative facts ("User prefers pnpm over npm"), not instructions or a diary. \
Do not store: secrets, passwords, keys or tokens; task progress, TODOs, logs of completed \
work, PR or commit numbers; anything easy to re-discover or stale within a week (past \
conversations are archived and found with session_search); step-by-step procedures (those \
are skills: skill_manage).

Actions: "show" lists the entries; "add" needs content; "replace" needs old_text (a short \
substring of exactly one entry) and content (the whole new entry); "remove" needs old_text. \
"operations" applies several add/replace/remove steps to one target all-or-nothing, with \
the size budget checked on the result — use it to consolidate when a file is full. Writes \
are saved at once and every future session, in any connected tool, starts with them."""

MEMORY_SEARCH = f"""\
{_KENNING} Search its memory files for passages about a topic: MEMORY.md and USER.md \
(durable facts), the daily journal (memory/YYYY-MM-DD.md: what happened each day) and any \
notes the user configured. Use it before asking the user something they may already have \
told an AI tool, or to recall a convention, a decision or a note from an earlier day. \
Returns file paths with line ranges; read around a hit with memory_get. Questions or \
keywords, in any language. For what was said or done in past conversations, use \
session_search instead."""

MEMORY_GET = f"""\
{_KENNING} Read lines of one of its memory files — typically the path and line range \
memory_search returned, e.g. memories/MEMORY.md or memory/2026-11-29.md. Only memory files \
can be read; this is not a general file reader. Returns numbered lines; a long file comes \
in parts, and the result names the call that reads the next part."""

SESSION_SEARCH = f"""\
{_KENNING} Search or browse its archive of past conversations: sessions of Kenning's agent, \
imported transcripts (e.g. from Claude Code) and MCP clients like this one, tool calls and \
results included. Use it when the user refers to earlier work ("like we did last week", \
"that error from before") or you need an exact detail — an id, a path, a command, a \
decision — that is not in memory; search before asking the user to repeat themselves. With \
query: matching sessions, each with its best messages in context. With session_id and \
message_id: the messages around that one. With session_id alone: how that session began \
and ended. With no arguments: the most recent sessions. Filters: source (cli, run, mcp, \
import, …), since/until (YYYY-MM-DD). Queries can be questions or keywords, any language."""

JOURNAL_APPEND = f"""\
{_KENNING} Append a note to today's journal: memory/YYYY-MM-DD.md, one append-only file per \
day. The journal is short-term memory — what happened and what is still open: decisions \
made, problems solved and how, things left to do. Kenning's agent sees today's and \
yesterday's journal when a session starts; older days are found with memory_search, and \
recurring facts are later consolidated into long-term memory. Use it when a substantial \
piece of work ends, or before your context is lost, for what the next session should know. \
Write a few plain sentences with exact identifiers (paths, commands, ids), not raw logs or \
tool output (limit 8,000 characters), and never secrets. Durable preferences and facts go \
to the memory tool instead."""

SKILL_LIST = f"""\
{_KENNING} List its skills: saved procedures for recurring kinds of task ("deploy the \
staging app", "triage a flaky test"), each a name and a one-line description of when it \
applies. Call it at the start of a non-trivial task to see whether one applies (the \
resource kenning://skills/index holds the same list); pass query to rank skills by \
relevance to the task, archived ones included. Load a matching skill with skill_view and \
follow it."""

SKILL_VIEW = f"""\
{_KENNING} Load one of its skills: the SKILL.md (when it applies, the steps, pitfalls, how \
to verify) or a support file (references/, templates/, scripts/, assets/). Load a skill \
whenever its name or description matches the task, even partly, and follow it. Read a \
skill before changing it with skill_manage."""

SKILL_MANAGE = f"""\
{_KENNING} Create and improve its skills: procedures for recurring kinds of task, loaded \
with skill_view by any AI tool the user connects.

Save a skill after a task that needed a non-trivial method worth repeating, or when the user \
corrected how the work should be done. Prefer improving a skill you used (patch) over \
creating a new one. Keep skills general ("deploy-django-app", not \
"deploy-django-app-for-bob-tuesday"). A good body says when the skill applies, the steps, \
pitfalls as rules with a one-clause reason, and how to verify the result. Leave out one-off \
stories, dates, ticket numbers, transient errors, secrets and anything unresolved.

Actions:
- create: name + content = the whole SKILL.md:
  ---
  name: <same as the name argument: lowercase letters, digits and hyphens>
  description: <what it is for and when to use it, at most 1024 characters>
  tags: [topic]
  ---
  <body>
- patch: name + old_string (exact text occurring once) + new_string; file for a support \
file; replace_all to change every occurrence.
- edit: name + content = the whole new SKILL.md.
- delete: name (moved to an archive; the user can restore it).
- write_file: name + file + content; files live under references/, templates/, scripts/ \
or assets/.
- remove_file: name + file.
Every change is checked (format, paths, a scan for injected instructions and secrets) and \
recorded in the home's git history."""

READ_ONLY_NOTE = (
    "This Kenning server runs read-only (started with --read-only): {what}; nothing is written. "
)

JOURNAL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "text": {"type": "string", "description": "The note: a few plain sentences."},
        "reason": {
            "type": "string",
            "description": "Why it is worth keeping, in one line (kept in the home's history).",
        },
    },
    "required": ["text"],
}

SKILL_LIST_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "query": {
            "type": "string",
            "description": "Words describing the task; ranks skills by relevance. Optional.",
        },
        "limit": {"type": "integer", "description": "At most this many skills (default 50)."},
    },
    "required": [],
}


def _never(args: Mapping[str, Any]) -> bool:
    return False


def _always(args: Mapping[str, Any]) -> bool:
    return True


@dataclass(frozen=True)
class ToolDef:
    """What MCP adds to one tool: its host-facing description, title and hints."""

    name: str
    title: str
    description: str
    writes: Callable[[Mapping[str, Any]], bool]
    read_only_hint: bool  # MCP annotation: never changes the home
    destructive_hint: bool  # MCP annotation: may replace or remove what is there
    refused_when_read_only: str = ""  # what read-only mode refuses, for the description

    def describe(self, *, read_only: bool) -> str:
        if read_only and self.refused_when_read_only:
            return READ_ONLY_NOTE.format(what=self.refused_when_read_only) + self.description
        return self.description


TOOLS: tuple[ToolDef, ...] = (
    ToolDef(
        "memory",
        "Kenning hot memory",
        MEMORY,
        memory_tool.writes,
        read_only_hint=False,
        destructive_hint=True,
        refused_when_read_only='only action "show" works, writes are refused',
    ),
    ToolDef(
        "memory_search",
        "Search Kenning memory files",
        MEMORY_SEARCH,
        _never,
        read_only_hint=True,
        destructive_hint=False,
    ),
    ToolDef(
        "memory_get",
        "Read a Kenning memory file",
        MEMORY_GET,
        _never,
        read_only_hint=True,
        destructive_hint=False,
    ),
    ToolDef(
        "session_search",
        "Search past conversations",
        SESSION_SEARCH,
        _never,
        read_only_hint=True,
        destructive_hint=False,
    ),
    ToolDef(
        "journal_append",
        "Append to today's journal",
        JOURNAL_APPEND,
        _always,
        read_only_hint=False,
        destructive_hint=False,
        refused_when_read_only="every call is refused",
    ),
    ToolDef(
        "skill_list",
        "List Kenning skills",
        SKILL_LIST,
        _never,
        read_only_hint=True,
        destructive_hint=False,
    ),
    ToolDef(
        "skill_view",
        "Load a Kenning skill",
        SKILL_VIEW,
        _never,
        read_only_hint=True,
        destructive_hint=False,
    ),
    ToolDef(
        "skill_manage",
        "Create or change a Kenning skill",
        SKILL_MANAGE,
        _always,
        read_only_hint=False,
        destructive_hint=True,
        refused_when_read_only="every call is refused",
    ),
)

BY_NAME: dict[str, ToolDef] = {tool.name: tool for tool in TOOLS}
