"""OpenAI chat-format files and ChatGPT's ``conversations.json`` export.

Accepted shapes (JSON, or JSON Lines when the file ends in ``.jsonl`` or holds
several JSON values one per line):

* ``{"messages": [...]}`` → one session; a list (or lines) of those → one each;
* a list (or lines) of messages → all of them one session;
* a ChatGPT conversation (``mapping`` of nodes) or a list of them → one each,
  following the branch that ends at ``current_node`` (the one the user saw).
  An assistant turn addressed to a tool (``recipient`` ``python``, ``bio``…)
  is a tool call, and the tool's answer a ``tool`` row tied to it.

One file holds one kind of unit, set by its first readable one. Where a unit
is a conversation (a session object, a ChatGPT conversation), a damaged one —
a line that is not JSON, a unit of another kind, a bad message, a broken
``mapping``, nesting too deep — is skipped and reported with its line or item,
and the others are imported. A file of messages is one conversation, so any
damage in it is an error naming the place. Chat-format files carry no times,
so their sessions are stamped with the import time (``meta.undated``), spaced
a millisecond apart in file order; the import key never depends on those
stamps.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any, cast

from kenning import clock
from kenning.archive.importers.common import (
    ImportedSession,
    ImportFormatError,
    ImportReport,
    ParsedImport,
    Problem,
    Progress,
    first_line,
    read_jsonl,
    store,
    to_timestamp,
)
from kenning.archive.importers.sources import (
    TOO_DEEP,
    deep_error,
    parse_json,
    read_bytes,
    too_deep,
)
from kenning.archive.store import Archive, Message, Role

FORMAT = "openai"
UNDATED = -1.0  # a placeholder start, replaced by the import time once parsing is done

ROLES: dict[str, Role] = {
    "system": "system",
    "developer": "system",
    "user": "user",
    "assistant": "assistant",
    "tool": "tool",
    "function": "tool",
}
_MESSAGE_KEYS = {"role", "content", "name", "tool_calls", "tool_call_id", "function_call"}
_PLACEHOLDERS = {
    "image_url": "[image]",
    "input_image": "[image]",
    "image": "[image]",
    "image_asset_pointer": "[image]",
    "input_audio": "[audio]",
    "audio": "[audio]",
    "audio_asset_pointer": "[audio]",
    "file": "[file]",
    "input_file": "[file]",
}
# ChatGPT reasoning nodes are skipped for the reason Claude's thinking blocks
# are: private working, not part of the conversation a later session recalls.
_CHATGPT_SKIP = {"thoughts", "reasoning_recap"}


def parse_openai(path: Path | str) -> ParsedImport:
    path = Path(path)
    data = read_bytes(path)
    if not data.strip():
        raise ImportFormatError(path, "", "the file is empty")
    units, damaged = _units(path, data)
    parser = _Parser(path)
    parser.run(units, damaged)
    # Undated sessions: import time, a millisecond apart, so listings keep file order.
    undated = [s for s in parser.sessions if s.started_at == UNDATED]
    now = clock.timestamp()
    for i, session in enumerate(undated):
        session.started_at = now - (len(undated) - i) * 0.001
        session.meta["undated"] = True
    for session in parser.sessions:
        session.messages = [
            m if m.created_at is not None else replace(m, created_at=session.started_at)
            for m in session.messages
        ]
    parsed = ParsedImport(FORMAT, [str(path)], parser.sessions, parser.skipped, parser.problems)
    return parsed.require_something()


def import_openai(
    archive: Archive, path: Path | str, *, progress: Progress | None = None
) -> ImportReport:
    return store(archive, parse_openai(path), progress=progress)


def _units(path: Path, data: bytes) -> tuple[list[tuple[str, Any]], list[Problem]]:
    """The file's top-level values, each with where it is (lines, list items or the
    document), and the lines that could not be read."""
    if path.suffix.lower() != ".jsonl":
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise ImportFormatError(path, f"byte {exc.start}", "not UTF-8 text") from exc
        try:
            # Depth is checked per item below, so one deep conversation is skipped alone.
            doc = parse_json(text, path, depth=False)
        except ImportFormatError as exc:
            # "Extra data": a first value parsed and more follow, i.e. JSON Lines.
            if "(Extra data)" not in exc.problem:
                raise
        else:
            if isinstance(doc, list):
                return [(f"item {i}", value) for i, value in enumerate(doc)], []
            if too_deep(doc):
                raise deep_error(path, text)
            return [("top level", doc)], []
    lines, damaged = read_jsonl(path, data)
    return [(f"line {n}", value) for n, value in lines], damaged


def _kind(value: Any) -> str:
    if isinstance(value, dict):
        if "mapping" in value:
            return "ChatGPT conversation"
        if "messages" in value:
            return "session object"
        if "role" in value:
            return "message"
    return "unknown"


_UNKNOWN = (
    'expected {"messages": [...]}, a message with a "role", '
    "or a ChatGPT conversation with a 'mapping'"
)


class _Parser:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.sessions: list[ImportedSession] = []
        self.skipped: Counter[str] = Counter()
        self.problems: list[Problem] = []

    def fail(self, where: str, problem: str) -> ImportFormatError:
        return ImportFormatError(self.path, where, problem)

    def run(self, units: list[tuple[str, Any]], damaged: list[Problem]) -> None:
        known = [_kind(value) for _, value in units if _kind(value) != "unknown"]
        if not known:
            if damaged:
                self.problems.extend(damaged)
                return
            if units:
                raise self.fail(units[0][0], _UNKNOWN)
            return
        first = known[0]
        if first == "message":
            # One conversation: damage anywhere in it is damage to all of it.
            if damaged:
                raise self.fail(damaged[0].where, damaged[0].problem)
            for where, value in units:
                self.check_unit(where, value, first)
            self.add_chat(units, units[0][0], {})
            return
        self.problems.extend(damaged)
        for where, value in units:
            try:
                self.check_unit(where, value, first)
                self.add_conversation(where, value, first)
            except ImportFormatError as exc:  # this conversation only
                self.problems.append(exc.as_problem())
        self.problems.sort(key=lambda p: p.line or 0)

    def check_unit(self, where: str, value: Any, first: str) -> None:
        kind = _kind(value)
        if kind == "unknown":
            raise self.fail(where, _UNKNOWN)
        if kind != first:
            raise self.fail(where, f"a {kind} in a file of {first}s; use one kind per file")
        if too_deep(value):
            raise self.fail(where, TOO_DEEP)

    def add_conversation(self, where: str, value: dict[str, Any], kind: str) -> None:
        if kind == "ChatGPT conversation":
            self.add_chatgpt(where, value)
        elif not isinstance(value.get("messages"), list):
            raise self.fail(where, "'messages' must be a list")
        else:
            numbered = [(f"{where}, message {i}", m) for i, m in enumerate(value["messages"])]
            self.add_chat(numbered, where, value)

    # -- chat format ---------------------------------------------------------

    def add_chat(self, items: list[tuple[str, Any]], where: str, header: dict[str, Any]) -> None:
        calls: dict[str, str] = {}
        messages = [self.message(w, item, calls) for w, item in items]
        if not messages:
            self.skipped["empty session"] += 1
            return
        extra = {k: v for k, v in header.items() if k not in ("messages", "title", "model", "id")}
        title = header.get("title")
        model = header.get("model")
        original_id = header.get("id")
        meta: dict[str, Any] = {"position": where}
        if original_id is not None:
            meta["id"] = original_id
        if extra:
            meta["extra"] = extra
        self.sessions.append(
            ImportedSession(
                format=FORMAT,
                origin=str(original_id) if original_id is not None else "",
                started_at=UNDATED,
                messages=messages,
                title=title if isinstance(title, str) else _first_user_line(messages),
                model=model if isinstance(model, str) else None,
                meta=meta,
            )
        )

    def message(self, where: str, item: Any, calls: dict[str, str]) -> Message:
        if not isinstance(item, dict):
            raise self.fail(where, "a message must be an object")
        raw_role = item.get("role")
        role = ROLES.get(raw_role) if isinstance(raw_role, str) else None
        if role is None:
            raise self.fail(where, f"unknown role {raw_role!r}; expected one of {sorted(ROLES)}")
        content = self.content(where, item.get("content"))
        refusal = item.get("refusal")
        if not content and isinstance(refusal, str):
            content = refusal
        tool_calls = item.get("tool_calls")
        if tool_calls is not None and (
            not isinstance(tool_calls, list) or not all(isinstance(c, dict) for c in tool_calls)
        ):
            raise self.fail(where, "'tool_calls' must be a list of objects")
        legacy = item.get("function_call")
        if not tool_calls and isinstance(legacy, dict):
            tool_calls = [{"type": "function", "function": legacy}]
        for call in tool_calls or []:
            function = call.get("function")
            if isinstance(call.get("id"), str) and isinstance(function, dict):
                calls[call["id"]] = str(function.get("name", ""))
        name = item.get("name") if isinstance(item.get("name"), str) else None
        call_id = item.get("tool_call_id") if isinstance(item.get("tool_call_id"), str) else None
        meta = {k: v for k, v in item.items() if k not in _MESSAGE_KEYS}
        if raw_role != role:
            meta["role"] = raw_role
        return Message(
            role=role,
            content=content,
            speaker=None if role == "tool" else name,
            tool_calls=cast(list[dict[str, Any]], tool_calls) or None,
            # A tool message names its function, or we find it from the call it answers.
            tool_name=(name or calls.get(call_id or "")) if role == "tool" else None,
            tool_call_id=call_id,
            meta=meta or None,
        )

    def content(self, where: str, value: Any) -> str:
        if value is None:
            return ""
        if isinstance(value, str):
            return value
        if not isinstance(value, list):
            raise self.fail(where, "'content' must be a string or a list of parts")
        texts = []
        for i, part in enumerate(value):
            if isinstance(part, str):
                texts.append(part)
            elif isinstance(part, dict):
                texts.append(_part_text(part))
            else:
                raise self.fail(f"{where}, content part {i}", "expected an object or a string")
        return "\n".join(t for t in texts if t)

    # -- ChatGPT export --------------------------------------------------------

    def add_chatgpt(self, where: str, conv: dict[str, Any]) -> None:
        mapping = conv.get("mapping")
        if not isinstance(mapping, dict) or not all(isinstance(n, dict) for n in mapping.values()):
            raise self.fail(where, "'mapping' must be an object of nodes")
        created = to_timestamp(conv.get("create_time"))
        when = created
        messages = []
        calls: dict[str, str] = {}  # tool name -> id of the last call to it
        for _, node in self.branch(where, mapping, conv.get("current_node")):
            message = self.chatgpt_message(node.get("message"), when, calls)
            if message is not None:
                messages.append(message)
                when = message.created_at
        if not messages:
            self.skipped["empty session"] += 1
            return
        conv_id = conv.get("conversation_id") or conv.get("id")
        title, model = conv.get("title"), conv.get("default_model_slug")
        self.sessions.append(
            ImportedSession(
                format=FORMAT,
                origin=str(conv_id or ""),
                started_at=created if created is not None else _first_time(messages),
                messages=messages,
                title=title if isinstance(title, str) and title else _first_user_line(messages),
                model=model if isinstance(model, str) else None,
                meta={"variant": "chatgpt", "conversation_id": conv_id, "position": where},
            )
        )

    def branch(
        self, where: str, mapping: dict[str, dict[str, Any]], current: Any
    ) -> list[tuple[str, dict[str, Any]]]:
        """The nodes from the root to ``current`` (default: the newest leaf)."""
        if current not in mapping:
            current = _newest_leaf(mapping)
        chain: list[tuple[str, dict[str, Any]]] = []
        node_id = current
        while node_id is not None:
            node = mapping.get(node_id)
            if node is None:
                raise self.fail(where, f"node {node_id!r} is referenced but missing")
            if len(chain) > len(mapping):
                raise self.fail(where, f"the parents of node {current!r} form a cycle")
            chain.append((node_id, node))
            node_id = node.get("parent")
        chain.reverse()
        return chain

    def chatgpt_message(
        self, msg: Any, fallback: float | None, calls: dict[str, str]
    ) -> Message | None:
        if not isinstance(msg, dict):
            return None  # the root node, which holds no message
        author = _obj(msg.get("author"))
        role = ROLES.get(str(author.get("role")))
        content = _obj(msg.get("content"))
        ctype = str(content.get("content_type", "text"))
        metadata = _obj(msg.get("metadata"))
        if ctype in _CHATGPT_SKIP:
            self.skipped[f"chatgpt {ctype}"] += 1
            return None
        if role is None:
            self.skipped[f"chatgpt author {author.get('role')}"] += 1
            return None
        if metadata.get("is_visually_hidden_from_conversation"):
            self.skipped["chatgpt hidden message"] += 1
            return None
        text = _chatgpt_text(content)
        if not text.strip():
            self.skipped["chatgpt empty message"] += 1
            return None
        name = author.get("name") if isinstance(author.get("name"), str) else None
        created = to_timestamp(msg.get("create_time"))
        meta = {"id": msg.get("id"), "content_type": ctype}
        if msg.get("recipient") not in (None, "all"):
            meta["recipient"] = msg["recipient"]
        if isinstance(metadata.get("model_slug"), str):
            meta["model"] = metadata["model_slug"]
        created_at = created if created is not None else fallback
        recipient = meta.get("recipient")
        if role == "assistant" and isinstance(recipient, str):
            # Addressed to a tool (``python`` for the code interpreter, ``bio``
            # for memory, ``web``…): a call, not speech to the user.
            call_id = str(msg.get("id") or f"call-{len(calls)}")
            calls[recipient] = call_id
            key = "code" if ctype == "code" else "input"
            arguments = json.dumps({key: text}, ensure_ascii=False)
            call = {
                "id": call_id,
                "type": "function",
                "function": {"name": recipient, "arguments": arguments},
            }
            return Message("assistant", "", tool_calls=[call], created_at=created_at, meta=meta)
        return Message(
            role=role,
            content=text,
            speaker=name,
            tool_name=name if role == "tool" else None,
            tool_call_id=calls.get(name or "") if role == "tool" else None,
            created_at=created_at,
            meta=meta,
        )


def _obj(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _part_text(part: dict[str, Any]) -> str:
    kind = str(part.get("type") or part.get("content_type") or "part")
    for key in ("text", "refusal"):
        if isinstance(part.get(key), str) and kind in ("text", "input_text", "output_text", key):
            return str(part[key])
    if kind == "audio_transcription" and isinstance(part.get("text"), str):
        return str(part["text"])
    return _PLACEHOLDERS.get(kind, f"[{kind}]")


def _chatgpt_text(content: dict[str, Any]) -> str:
    parts = content.get("parts")
    if isinstance(parts, list):
        kept = [p for p in parts if isinstance(p, str | dict)]
        texts = [p if isinstance(p, str) else _part_text(p) for p in kept]
        return "\n".join(t for t in texts if t)
    for key in ("text", "result"):
        if isinstance(content.get(key), str):
            return str(content[key])
    return ""


def _newest_leaf(mapping: dict[str, dict[str, Any]]) -> str | None:
    roots = [k for k, n in mapping.items() if n.get("parent") not in mapping]
    node_id = roots[0] if roots else None
    seen: set[str] = set()
    while node_id is not None and node_id not in seen:
        seen.add(node_id)
        children = [c for c in mapping[node_id].get("children") or [] if c in mapping]
        if not children:
            return node_id
        node_id = children[-1]  # ChatGPT appends regenerations and edits: the last is newest
    return node_id


def _first_time(messages: list[Message]) -> float:
    return next((m.created_at for m in messages if m.created_at is not None), UNDATED)


def _first_user_line(messages: list[Message]) -> str | None:
    for m in messages:
        if m.role == "user" and (title := first_line(m.content)):
            return title
    return None
