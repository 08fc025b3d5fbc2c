"""Claude Code transcripts: ``~/.claude/projects/<project>/*.jsonl``, a file or a folder.

Each line is one event. ``user``/``assistant``/``system`` events become
messages, grouped into one session per ``sessionId`` (a session may span
files); ``summary`` events title the session that holds their ``leafUuid``.
Everything else (``file-history-snapshot``, unknown future types) is skipped
and counted in the report, never an error. An event seen twice (a resumed
session copies its history) is kept once, by ``uuid``.

Sidechain events (``isSidechain``: a sub-agent the Task tool started, written
into the parent's file or, in newer versions, into ``subagents/agent-*.jsonl``)
are a conversation of their own: each sub-agent (its ``agentId``, else the
chain of ``parentUuid`` links its lines form) becomes a child session of the
main one, typed the same way, so its work is searchable without interleaving
with the main conversation.

Sessions are stored by ``host_keyed``: keyed by the session id, messages by
line ``uuid``, so importing a folder again updates what is there (appends new
lines, re-types old rows) and never duplicates a session.

A damaged line (not UTF-8, not JSON, too deeply nested, or a message event
without its ``sessionId`` or ``message``) is skipped and reported with its
file and line; so is a file that cannot be read, or is not a regular file
(a FIFO among the transcripts). Everything else is imported.

Claude Code also writes lines of its own as user events: the "Caveat: …"
note before local commands, the echo of a slash command (``<command-name>``),
a local command's output (``<local-command-stdout>``), the summary that opens a
compacted session (``isCompactSummary``), interruption notes. None of them is
the user speaking: they are stored as ``system`` rows (``meta.harness`` says
which kind), which search does not index and titles never use.

Claude Code writes one assistant reply as several lines, one per content block,
all with the same ``message.id``; consecutive ones are merged back into one
message. ``tool_use`` blocks become OpenAI-shaped ``tool_calls`` (arguments as
a JSON string) and ``tool_result`` blocks become ``tool`` messages, so every
importer stores calls the same way.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from kenning.archive.importers.common import (
    ImportedSession,
    ImportFormatError,
    ParsedImport,
    Problem,
    Progress,
    first_line,
    read_jsonl,
    to_timestamp,
)
from kenning.archive.importers.host_keyed import HostReport, store_host_keyed
from kenning.archive.importers.sources import check_source
from kenning.archive.store import Archive, Message

FORMAT = "claude-code"
_MESSAGE_TYPES = ("user", "assistant", "system")


@dataclass
class _Event:
    data: dict[str, Any]
    timestamp: float | None
    file: str


@dataclass
class _Session:
    events: list[_Event] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    parent: str | None = None  # a sidechain's main session id
    agent: str | None = None  # a sidechain's agentId, when the lines name it


def parse_claude_code(path: Path | str) -> ParsedImport:
    path = Path(path)
    check_source(path, folder_ok=True)
    if path.is_dir():
        files = sorted(path.rglob("*.jsonl"))
        if not files:
            raise ImportFormatError(path, "", "no .jsonl transcripts in this folder")
    else:
        files = [path]
    skipped: Counter[str] = Counter()
    problems: list[Problem] = []
    sessions: dict[str, _Session] = {}
    owner: dict[str, str] = {}  # event uuid -> session key, to place summaries
    summaries: list[tuple[str, str]] = []
    for file in files:
        try:
            lines, damaged = read_jsonl(file)
        except ImportFormatError as exc:  # unreadable, or a FIFO named *.jsonl
            problems.append(exc.as_problem())
            continue
        problems.extend(damaged)
        problems.extend(_read_file(file, lines, sessions, owner, summaries, skipped))
    titles: dict[str, str] = {}
    for leaf, summary in summaries:
        if leaf in owner:
            titles[owner[leaf]] = summary  # the last summary written wins
        else:
            skipped["summary of a session not in this import"] += 1
    imported = []
    for key, session in sessions.items():
        built = _build(key, session, titles.get(key), skipped)
        if built is None:
            skipped["empty sidechain" if session.parent else "empty session"] += 1
        else:
            imported.append(built)
    problems.sort(key=lambda p: (p.path, p.line or 0))
    return ParsedImport(FORMAT, [str(path)], imported, skipped, problems).require_something()


def import_claude_code(
    archive: Archive, path: Path | str, *, progress: Progress | None = None
) -> HostReport:
    return store_host_keyed(archive, parse_claude_code(path), progress=progress)


def _read_file(
    file: Path,
    lines: list[tuple[int, Any]],
    sessions: dict[str, _Session],
    owner: dict[str, str],
    summaries: list[tuple[str, str]],
    skipped: Counter[str],
) -> list[Problem]:
    """Add the file's events to their sessions; the lines of the wrong shape come back."""
    problems: list[Problem] = []
    last_time: float | None = None
    for number, event in lines:
        problem = _shape_problem(event)
        if problem is not None:
            problems.append(Problem(str(file), f"line {number}", problem))
            continue
        kind = event.get("type")
        if kind == "summary":
            if isinstance(event.get("summary"), str) and isinstance(event.get("leafUuid"), str):
                summaries.append((event["leafUuid"], event["summary"]))
            continue
        if kind not in _MESSAGE_TYPES:
            skipped[f"{kind} event"] += 1
            continue
        session_id = event["sessionId"]
        uuid = event.get("uuid")
        if isinstance(uuid, str) and uuid in owner:
            skipped["duplicate event"] += 1
            continue
        key, agent = session_id, None
        if event.get("isSidechain"):
            key, agent = sidechain_key(event, owner)
        if isinstance(uuid, str):
            owner[uuid] = key
        stamp = to_timestamp(event.get("timestamp"))
        last_time = stamp if stamp is not None else last_time
        session = sessions.setdefault(key, _Session())
        if key != session_id:
            session.parent, session.agent = session_id, agent
        session.events.append(_Event(event, last_time, file.name))
        if file.name not in session.files:
            session.files.append(file.name)
    return problems


def sidechain_key(event: dict[str, Any], owner: dict[str, str]) -> tuple[str, str | None]:
    """The child session a sidechain line belongs to, and its agent id if named.

    A line continues the sub-agent its ``parentUuid`` belongs to; the first
    line of a sub-agent links to the main thread (or to nothing) and opens it.
    """
    session_id = event["sessionId"]
    agent = event.get("agentId")
    if isinstance(agent, str) and agent:
        return f"{session_id}/sidechain/{agent}", agent
    parent = owner.get(str(event.get("parentUuid")))
    if parent is not None and parent.startswith(f"{session_id}/sidechain/"):
        return parent, None
    return f"{session_id}/sidechain/{event.get('uuid') or 'root'}", None


def _shape_problem(event: Any) -> str | None:
    """Why a line cannot be an event, or None when it can."""
    if not isinstance(event, dict):
        return "expected a JSON object"
    kind = event.get("type")
    if kind not in _MESSAGE_TYPES:
        return None  # skipped and counted, whatever else it holds
    a = "an" if kind == "assistant" else "a"
    session_id = event.get("sessionId")
    if not isinstance(session_id, str) or not session_id:
        return f"{a} {kind} event without a 'sessionId'"
    if kind != "system" and not isinstance(event.get("message"), dict):
        return f"{a} {kind} event without a 'message' object"
    return None


def _build(
    origin: str, session: _Session, title: str | None, skipped: Counter[str]
) -> ImportedSession | None:
    # A session resumed into another file continues there: order by time,
    # stably, so lines of one file keep their order.
    events = sorted(session.events, key=lambda e: e.timestamp or 0.0)
    builder = _Builder(skipped)
    for event in events:
        builder.add(event)
    if not builder.messages:
        return None
    first = events[0].data
    start = next((e.timestamp for e in events if e.timestamp is not None), None)
    started_at = start if start is not None else 0.0
    messages = [
        m if m.created_at is not None else replace(m, created_at=started_at)
        for m in builder.messages
    ]
    meta: dict[str, Any] = {"files": session.files}
    if session.parent is None:
        meta["session_id"] = origin  # what ``sessions show --host-id`` finds
    else:
        meta |= {"sidechain": True, "parent_session_id": session.parent}
        if session.agent:
            meta["agent_id"] = session.agent
    for key, name in (("gitBranch", "git_branch"), ("version", "claude_code_version")):
        if isinstance(first.get(key), str) and first[key]:
            meta[name] = first[key]
    cwd = next((e.data["cwd"] for e in events if isinstance(e.data.get("cwd"), str)), None)
    return ImportedSession(
        format=FORMAT,
        origin=origin,
        parent_origin=session.parent,
        started_at=started_at,
        messages=messages,
        title=title or builder.first_prompt(),
        workspace=cwd,
        model=builder.model,
        meta=meta,
    )


class _Builder:
    """Turns one session's events into messages, in order."""

    def __init__(self, skipped: Counter[str]) -> None:
        self.skipped = skipped
        self.messages: list[Message] = []
        self.model: str | None = None
        self.call_names: dict[str, str] = {}
        self.last_reply_id: str | None = None  # message.id of the last assistant message

    def add(self, event: _Event) -> None:
        data = event.data
        meta: dict[str, Any] = {"uuid": data.get("uuid")}
        if data.get("isMeta"):
            meta["is_meta"] = True  # harness notes (caveats, command echoes), not typed
        if data["type"] == "system":
            self.last_reply_id = None
            content = data.get("content")
            if isinstance(content, str) and content.strip():
                extra = {k: data[k] for k in ("subtype", "level") if isinstance(data.get(k), str)}
                self.messages.append(
                    Message("system", content, created_at=event.timestamp, meta=meta | extra)
                )
            else:
                self.skipped["system event without text"] += 1
        elif data["type"] == "user":
            self.last_reply_id = None
            content = data["message"].get("content")
            kind = harness_kind(data, content)
            if kind is None:
                self.user(content, event.timestamp, meta)
            else:
                text = _flatten(content)
                harness = meta | {"harness": kind}
                self.messages.append(
                    Message("system", text, created_at=event.timestamp, meta=harness)
                )
        else:
            self.assistant(data["message"], event.timestamp, meta)

    def user(self, content: Any, when: float | None, meta: dict[str, Any]) -> None:
        texts = []
        for block in _blocks(content):
            if block.get("type") == "tool_result":
                call_id = block.get("tool_use_id")
                call_id = call_id if isinstance(call_id, str) else None
                result_meta = meta | ({"is_error": True} if block.get("is_error") else {})
                self.messages.append(
                    Message(
                        "tool",
                        _flatten(block.get("content")),
                        tool_name=self.call_names.get(call_id or ""),
                        tool_call_id=call_id,
                        created_at=when,
                        meta=result_meta,
                    )
                )
            else:
                texts.append(self.block_text(block))
        text = "\n".join(t for t in texts if t)
        if text:
            self.messages.append(Message("user", text, created_at=when, meta=meta))

    def assistant(self, message: dict[str, Any], when: float | None, meta: dict[str, Any]) -> None:
        model = message.get("model")
        if self.model is None and isinstance(model, str) and not model.startswith("<"):
            self.model = model  # "<synthetic>" marks replies Claude Code made up itself
        texts, calls = [], []
        for block in _blocks(message.get("content")):
            if block.get("type") == "tool_use":
                call_id, name = str(block.get("id", "")), str(block.get("name", ""))
                self.call_names[call_id] = name
                arguments = json.dumps(block.get("input", {}), ensure_ascii=False)
                calls.append(
                    {
                        "id": call_id,
                        "type": "function",
                        "function": {"name": name, "arguments": arguments},
                    }
                )
            else:
                texts.append(self.block_text(block))
        text = "\n".join(t for t in texts if t)
        if not text and not calls:
            return
        usage = message.get("usage")
        usage = usage if isinstance(usage, dict) else {}
        # Prompt size as OpenAI counts it: cached and cache-writing tokens included.
        prompt = sum(
            _count(usage.get(k))
            for k in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
        )
        output = _count(usage.get("output_tokens"))
        reply_id = message.get("id") if isinstance(message.get("id"), str) else None
        previous = self.messages[-1] if self.messages else None
        if reply_id is not None and reply_id == self.last_reply_id and previous is not None:
            # Another block of the same reply: merge, and keep the latest usage
            # (each line repeats the reply's running totals; adding would double count).
            self.messages[-1] = replace(
                previous,
                content="\n".join(t for t in (previous.content, text) if t),
                tool_calls=[*(previous.tool_calls or []), *calls] or None,
                input_tokens=prompt or previous.input_tokens,
                output_tokens=output or previous.output_tokens,
            )
            return
        self.last_reply_id = reply_id
        self.messages.append(
            Message(
                "assistant",
                text,
                tool_calls=calls or None,
                created_at=when,
                input_tokens=prompt or None,
                output_tokens=output or None,
                meta=meta | ({"message_id": reply_id} if reply_id else {}),
            )
        )

    def block_text(self, block: dict[str, Any]) -> str:
        kind = block.get("type")
        if kind == "text":
            return str(block.get("text") or "")
        if kind in ("thinking", "redacted_thinking"):
            # The model's private reasoning (often redacted or signed): not part
            # of the conversation, and not something a later session should recall.
            self.skipped["thinking block"] += 1
            return ""
        return "[image]" if kind == "image" else f"[{kind}]"

    def first_prompt(self) -> str | None:
        for m in self.messages:
            if m.role == "user" and (title := first_line(m.content)):
                return title  # harness lines are system rows, never the title
        return None


# Text that opens a user event Claude Code wrote itself, by kind (see the module doc).
_HARNESS_OPENINGS = (
    ("Caveat: The messages below were generated by the user while running", "caveat"),
    ("<local-command-caveat>", "caveat"),
    ("<command-name>", "command"),
    ("<command-message>", "command"),
    ("<command-args>", "command"),
    ("<local-command-stdout>", "command-output"),
    ("<local-command-stderr>", "command-output"),
    ("<bash-input>", "command"),
    ("<bash-stdout>", "command-output"),
    ("<bash-stderr>", "command-output"),
    ("[Request interrupted by user", "interruption"),
)


def harness_kind(event: dict[str, Any], content: Any) -> str | None:
    """Which of Claude Code's own lines a user event is, or None for the user speaking.

    A line with a tool result is the tool's answer, never harness text.
    """
    if event.get("isCompactSummary"):
        return "compact-summary"
    blocks = _blocks(content)
    if any(b.get("type") == "tool_result" for b in blocks):
        return None
    text = "\n".join(str(b.get("text") or "") for b in blocks if b.get("type") == "text")
    opening = text.lstrip()
    for prefix, kind in _HARNESS_OPENINGS:
        if opening.startswith(prefix):
            return kind
    return "meta" if event.get("isMeta") else None


def _blocks(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if isinstance(content, list):
        return [b if isinstance(b, dict) else {"type": "text", "text": str(b)} for b in content]
    return []


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def _flatten(content: Any) -> str:
    """A tool result's content: a string, or blocks of text and images."""
    parts = []
    for block in _blocks(content):
        kind = block.get("type")
        parts.append(str(block.get("text") or "") if kind == "text" else f"[{kind}]")
    return "\n".join(p for p in parts if p)


# -- live archiving (kenning.hosts): new lines of one transcript as they come ----------


def messages_since(
    events: list[Any], carry: dict[str, Any]
) -> tuple[list[Message], dict[str, Any], str | None]:
    """The messages of a transcript's new lines, read the way an import reads them.

    ``carry`` is what the earlier lines left for these (``call_names``: tool
    names by call id, for the results; ``model``); returned updated, with the
    first user prompt as a title when these are the first lines. Lines an
    import skips (damaged, noise) are skipped here too; sidechains are
    ``sidechains_since``'s.
    """
    builder = _Builder(Counter())
    names = carry.get("call_names")
    builder.call_names = dict(names) if isinstance(names, dict) else {}
    model = carry.get("model")
    builder.model = model if isinstance(model, str) else None
    for data in events:
        if _shape_problem(data) is not None or data.get("type") not in _MESSAGE_TYPES:
            continue
        if data.get("isSidechain"):
            continue
        builder.add(_Event(data, to_timestamp(data.get("timestamp")), ""))
    # Only the calls still waiting for a result need their names carried on.
    answered = {m.tool_call_id for m in builder.messages if m.role == "tool"}
    pending = {k: v for k, v in builder.call_names.items() if k not in answered}
    return builder.messages, {"call_names": pending, "model": builder.model}, builder.first_prompt()


CHAINS_KEPT = 500  # sidechain line -> sub-agent links carried between passes


def sidechains_since(
    events: list[Any], chains: dict[str, str]
) -> tuple[dict[str, tuple[list[Message], str | None]], dict[str, str]]:
    """The sub-agent (sidechain) messages of a transcript's new lines, by the child
    session origin an import gives them, each with its title.

    ``chains`` maps earlier sidechain line uuids to their sub-agent (a line
    continues the sub-agent of its ``parentUuid``); returned updated, only the
    newest ``CHAINS_KEPT`` kept, as a chain links to its latest lines.
    """
    owner = dict(chains)
    grouped: dict[str, list[_Event]] = {}
    for data in events:
        if _shape_problem(data) is not None or data.get("type") not in _MESSAGE_TYPES:
            continue
        if not data.get("isSidechain"):
            continue
        key, _ = sidechain_key(data, owner)
        if isinstance(data.get("uuid"), str):
            owner[data["uuid"]] = key
        grouped.setdefault(key, []).append(_Event(data, to_timestamp(data.get("timestamp")), ""))
    found: dict[str, tuple[list[Message], str | None]] = {}
    for key, group in grouped.items():
        builder = _Builder(Counter())
        for item in group:
            builder.add(item)
        if builder.messages:
            found[key] = (builder.messages, builder.first_prompt())
    return found, dict(list(owner.items())[-CHAINS_KEPT:])
