"""Gemini CLI: where it reads each piece, and how its session records become messages.

============  ===================================  ==================================
piece         ``--scope user``                     ``--scope project`` (folder P)
============  ===================================  ==================================
MCP server    ``~/.gemini/settings.json``          ``P/.gemini/settings.json``
hooks         ``~/.gemini/settings.json``          ``P/.gemini/settings.json``
skills        ``~/.gemini/skills/<name>/``         ``P/.gemini/skills/<name>/``
memory        ``~/.gemini/GEMINI.md``              ``P/GEMINI.md``
============  ===================================  ==================================

From Gemini CLI's documentation: hooks are groups under ``hooks.<Event>`` in
``settings.json`` (``{"hooks": [{"type": "command", "command", "name",
"timeout"}]}``, timeout in milliseconds), with the same input fields as
Claude Code's (``session_id``, ``transcript_path``, ``cwd``,
``hook_event_name``); the events used are ``AfterAgent`` (once per turn,
after the final answer), ``PreCompress`` and ``SessionEnd``. ``GEMINI.md``
imports a file with an ``@path`` line. Skills (``experimental.skills``) are
``SKILL.md`` folders, the shape Kenning writes.

The session file is JSON Lines of records (``chatRecordingService``): a
metadata line (``sessionId``, ``projectHash``), message records (``id``,
``timestamp``, ``type`` user / gemini / info / error / warning,
``content``; a gemini message may carry ``toolCalls`` with their ``result``,
``tokens`` and ``model``), ``$set`` metadata updates and ``$rewindTo``. A
message is written again, whole, when it changes (a tool call's result
arrives): within one pass the last copy wins, and a message already
archived is not archived again (the hooks run at the end of a turn, when
its messages are final). Older versions rewrote one JSON document
(``messages: [...]``); that is read whole each pass (``read_document``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from kenning.archive.importers.common import first_line, to_timestamp
from kenning.archive.store import Message
from kenning.home import Home
from kenning.hosts import install as generic
from kenning.hosts.install import HostSpec, InstallReport, Places, Scope

HOST = "gemini-cli"
SPEC = HostSpec(
    HOST,
    "Gemini CLI",
    ("AfterAgent", "PreCompress", "SessionEnd"),
    hook_timeout=10_000,
    mcp_type=False,
    hook_name=True,
)
REVIEW_EVENTS = ("AfterAgent", "SessionEnd")
KEEP_IDS = 5000  # ids remembered as archived (a rewrite only repeats recent messages)


def places(scope: Scope, *, user_home: Path, project: Path | None) -> Places:
    root = user_home if scope == "user" else project
    assert root is not None
    gemini = root / ".gemini"
    memory = gemini / "GEMINI.md" if scope == "user" else root / "GEMINI.md"
    return Places(
        scope,
        project if scope == "project" else None,
        gemini / "settings.json",
        gemini / "settings.json",
        gemini / "skills",
        memory,
    )


def read_document(path: Path) -> list[Any] | None:
    """The messages of an older, whole-document session file; None for JSON Lines."""
    if path.suffix != ".json":
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    messages = data.get("messages") if isinstance(data, dict) else None
    return [m for m in messages if isinstance(m, dict)] if isinstance(messages, list) else []


def parse_lines(
    events: list[Any], carry: dict[str, Any], session_id: str
) -> tuple[list[Message], dict[str, Any], str | None]:
    """The new message records as messages; ``carry`` remembers the ids archived."""
    seen = [i for i in carry.get("ids") or [] if isinstance(i, str)]
    done = set(seen)
    latest: dict[str, dict[str, Any]] = {}
    for record in events:
        if not isinstance(record, dict) or not isinstance(record.get("id"), str):
            continue  # metadata, $set and $rewindTo lines
        if record["id"] in done:
            continue
        latest[record["id"]] = record  # dicts keep first-seen order; the last copy wins
    messages: list[Message] = []
    model = carry.get("model") if isinstance(carry.get("model"), str) else None
    for record_id, record in latest.items():
        messages.extend(_messages(record))
        if record.get("type") == "gemini" and isinstance(record.get("model"), str):
            model = record["model"]
        seen.append(record_id)
    title = next((first_line(m.content) for m in messages if m.role == "user"), None)
    return messages, {"ids": seen[-KEEP_IDS:], "model": model}, title


def _messages(record: dict[str, Any]) -> list[Message]:
    kind = record.get("type")
    when = to_timestamp(record.get("timestamp"))
    meta: dict[str, Any] = {"id": record["id"]}
    text = _text(record.get("content"))
    if kind == "user":
        return [Message("user", text, created_at=when, meta=meta)] if text.strip() else []
    if kind in ("info", "error", "warning"):
        # The CLI's own notes (a model switch, an error shown): not the user, not the model.
        return [Message("system", text, created_at=when, meta=meta | {"harness": kind})]
    if kind != "gemini":
        return []
    calls = [c for c in record.get("toolCalls") or [] if isinstance(c, dict)]
    tool_calls = [
        {
            "id": str(c.get("id", "")),
            "type": "function",
            "function": {
                "name": str(c.get("name", "")),
                "arguments": json.dumps(c.get("args") or {}, ensure_ascii=False),
            },
        }
        for c in calls
    ]
    raw_tokens = record.get("tokens")
    tokens: dict[str, Any] = raw_tokens if isinstance(raw_tokens, dict) else {}
    out = []
    if text.strip() or tool_calls:
        out.append(
            Message(
                "assistant",
                text,
                tool_calls=tool_calls or None,
                created_at=when,
                input_tokens=_count(tokens.get("input")),
                output_tokens=_count(tokens.get("output")),
                meta=meta,
            )
        )
    for call in calls:
        if call.get("result") is None and call.get("resultDisplay") is None:
            continue
        result = _text(call.get("result")) or _text(call.get("resultDisplay"))
        status = {"status": call["status"]} if isinstance(call.get("status"), str) else {}
        out.append(
            Message(
                "tool",
                result,
                tool_name=str(call.get("name", "")) or None,
                tool_call_id=str(call.get("id", "")) or None,
                created_at=to_timestamp(call.get("timestamp")) or when,
                meta=status,
            )
        )
    return out


def _text(content: Any) -> str:
    """Gemini's PartListUnion (a string, a part or a list of them) as text."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    parts = content if isinstance(content, list) else [content]
    texts = []
    for part in parts:
        if isinstance(part, str):
            texts.append(part)
        elif isinstance(part, dict):
            if isinstance(part.get("text"), str):
                if not part.get("thought"):  # the model's private reasoning stays out
                    texts.append(part["text"])
            elif isinstance(part.get("functionResponse"), dict):
                response = part["functionResponse"].get("response")
                output = response.get("output") if isinstance(response, dict) else None
                texts.append(
                    output if isinstance(output, str) else json.dumps(response, ensure_ascii=False)
                )
            elif "inlineData" in part or "fileData" in part:
                texts.append("[file]")
    return "\n".join(t for t in texts if t)


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


# -- the generic operations, for this host ---------------------------------------


def install(home: Home, where: Places, **options: Any) -> InstallReport:
    return generic.install(SPEC, home, where, **options)


def uninstall(home: Home, where: Places) -> list[str]:
    return generic.uninstall(SPEC, home, where)


def status(home: Home, where: Places) -> list[str]:
    return generic.status(SPEC, home, where)


def hook_command(home: Home, *, review: bool, assignments: list[str]) -> str:
    return generic.hook_command(SPEC, home, review=review, assignments=assignments)
