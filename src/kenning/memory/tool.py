"""The ``memory`` tool: how the model reads and writes hot memory.

Results are written for the model. A success is terminal ("saved, done, do
not repeat it") and deliberately does not echo the entries, because echoing
them invites the model to write them again. A failure carries the current
entries with their sizes, the usage and the next step. After three failed
writes in one turn the tool tells the model to stop and move on, which breaks
the retry loops seen when memory is full (Hermes #42405).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, MutableMapping, Sequence
from typing import Any

from kenning.memory.store import (
    ErrorKind,
    MemoryFileError,
    MemoryState,
    MemoryStore,
    MemoryWriteError,
    Operation,
    Target,
    WriteResult,
)

MAX_FAILURES_PER_TURN = 3

DESCRIPTION = """\
Save durable facts to your persistent memory. It is shown to you at the start of every \
future session (a snapshot; writes made now appear from the next session on), so keep it \
small and true.

Two targets:
- "user": who the user is — preferences, corrections, working style, expectations.
- "memory": your notes — environment facts, project conventions, tool quirks.

Save proactively when the user states a preference or corrects you, shares a personal \
detail that will matter again, or you learn a stable fact about their environment. \
Priority: user preferences & corrections > environment facts > procedures.

Write declarative facts, not instructions: "User prefers concise answers" ✓, \
"Always answer concisely" ✗. Skip: task progress, completed-work logs, TODOs, PR numbers, \
commit ids, raw data, anything easy to re-discover or stale within a week (the session \
archive keeps those; search it). Reusable step-by-step procedures belong in a skill.

Actions: "show" lists the live entries; "add" needs content; "replace" needs old_text \
(a short unique substring of one entry) and content (the full new entry); "remove" needs \
old_text. "operations" applies several add/replace/remove steps to one target \
all-or-nothing, with the size budget checked on the final result — use it to consolidate \
when memory is full."""

_OPERATION_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "action": {"type": "string", "enum": ["add", "replace", "remove"]},
        "content": {"type": "string"},
        "old_text": {"type": "string"},
        "keep_both": {"type": "boolean"},
    },
    "required": ["action"],
}

# Only `target` is required and no combinators are used: several providers
# reject oneOf/anyOf in tool schemas. The handler checks the combinations.
SCHEMA: dict[str, Any] = {
    "name": "memory",
    "description": DESCRIPTION,
    "parameters": {
        "type": "object",
        "properties": {
            "action": {
                "type": "string",
                "enum": ["show", "add", "replace", "remove"],
                "description": "What to do. Omit when passing operations.",
            },
            "target": {
                "type": "string",
                "enum": ["memory", "user"],
                "description": "'user' for facts about the user, 'memory' for your notes.",
            },
            "content": {
                "type": "string",
                "description": "The full entry text (add, replace).",
            },
            "old_text": {
                "type": "string",
                "description": "A short substring identifying exactly one entry (replace, remove).",
            },
            "keep_both": {
                "type": "boolean",
                "description": "add: both are true; do not warn that it may update an entry.",
            },
            "operations": {
                "type": "array",
                "items": _OPERATION_SCHEMA,
                "description": "Several add/replace/remove steps applied together or not at all.",
            },
        },
        "required": ["target"],
    },
}


# Told of every write that changed a file: the target, the operations applied, the result.
WriteObserver = Callable[[Target, Sequence[Operation], WriteResult], None]


def writes(args: Mapping[str, Any]) -> bool:
    """Whether a call changes memory: anything but ``show`` (``operations`` included)."""
    return bool(args.get("operations")) or args.get("action") in ("add", "replace", "remove")


class MemoryTool:
    """Counts failed writes in the current turn, to stop retry loops.

    Standalone, the tool keeps its own count (``begin_turn`` resets it). A
    caller that shares one tool between sessions or threads passes the
    call's own ``reason`` and its turn's ``failures`` instead, so nothing of
    one call is left on the tool for another to see.
    """

    name = "memory"
    schema = SCHEMA

    def __init__(self, store: MemoryStore, *, reason: str = "memory tool") -> None:
        self.store = store
        self.reason = reason
        self._failures: dict[str, int] = {}

    def begin_turn(self) -> None:
        self._failures.clear()

    def __call__(
        self,
        args: Mapping[str, Any],
        *,
        reason: str | None = None,
        failures: MutableMapping[str, int] | None = None,
        on_write: WriteObserver | None = None,
    ) -> dict[str, Any]:
        """Run one call; ``on_write`` hears of a write that changed the file (after it landed)."""
        counts = self._failures if failures is None else failures
        try:
            target, operations = _parse(args)
        except MemoryWriteError as exc:
            return _failure(exc, counts)
        if operations is None:
            return _show(self.store, target)
        try:
            result = self.store.apply(target, operations, reason=reason or self.reason)
        except MemoryWriteError as exc:
            return _failure(exc, counts)
        counts[self.name] = 0
        if result.changed and on_write is not None:
            on_write(target, operations, result)
        usage = result.state.usage_line()
        if not result.changed:
            return {
                "success": True,
                "done": True,
                "message": f"Already in memory; nothing to change ({'; '.join(result.skipped)}). "
                "Done — do not repeat this write.",
                "usage": usage,
            }
        skipped = f" Skipped: {'; '.join(result.skipped)}." if result.skipped else ""
        saved: dict[str, Any] = {
            "success": True,
            "done": True,
            "message": f"Saved to {target.filename} ({len(result.changes)} change"
            f"{'s' if len(result.changes) != 1 else ''}).{skipped} It will be in your memory "
            "from the next session on. Done — do not repeat this write.",
            "usage": usage,
        }
        if result.restated:
            saved["may_update"] = list(result.restated)
            saved["message"] += (
                f" Note: it looks like an update of {len(result.restated)} existing "
                "entr" + ("y" if len(result.restated) == 1 else "ies") + " (listed in may_update);"
                " if it replaces one, remove that entry now so the old version does not stay in"
                " every prompt (or next time use replace). If both are true, leave them."
            )
        if result.history_problem:
            # The write stands (do not retry it), but the user should learn that
            # their history has stopped, and how to restart it.
            saved["history"] = result.history_problem
            saved["message"] += (
                " Saved, but not recorded in history; tell the user once: " + result.history_problem
            )
        return saved


def _failure(exc: MemoryWriteError, counts: MutableMapping[str, int]) -> dict[str, Any]:
    counts["memory"] = counts.get("memory", 0) + 1
    result: dict[str, Any] = {
        "success": False,
        "error": exc.kind.value,
        "message": exc.message,
        "next_step": exc.next_step,
    }
    if exc.matches:
        result["matches"] = exc.matches
    if exc.state is not None:
        result.update(_state_payload(exc.state))
    if counts["memory"] >= MAX_FAILURES_PER_TURN:
        result["done"] = True
        result["next_step"] = (
            f"{MAX_FAILURES_PER_TURN} memory writes failed this turn. Stop retrying: "
            "continue with the user's task and mention that memory could not be updated."
        )
    return result


def _state_payload(state: MemoryState) -> dict[str, Any]:
    return {
        "usage": state.usage_line(),
        "entries": [{"chars": len(entry), "text": entry} for entry in state.entries],
    }


def _show(store: MemoryStore, target: Target) -> dict[str, Any]:
    try:
        state = store.read(target)
    except MemoryFileError as exc:
        kind = ErrorKind.UNPARSEABLE if exc.problem == "unparseable" else ErrorKind.UNUSABLE
        return {
            "success": False,
            "error": kind.value,
            "message": f"{target.filename} {exc.model_detail}.",
            "next_step": f"Tell the user the file needs fixing by hand ({exc.next_step}); "
            "do not write to it until then.",
        }
    return {"success": True, "target": target.value, **_state_payload(state)}


def _parse(args: Mapping[str, Any]) -> tuple[Target, list[Operation] | None]:
    raw_target = args.get("target")
    try:
        target = Target(str(raw_target))
    except ValueError:
        raise MemoryWriteError(
            ErrorKind.INVALID,
            f"Unknown target {raw_target!r}.",
            "Use target 'user' (facts about the user) or 'memory' (your notes).",
        ) from None
    raw_ops = args.get("operations")
    action = args.get("action")
    if raw_ops:
        if not isinstance(raw_ops, list) or not all(isinstance(op, dict) for op in raw_ops):
            raise MemoryWriteError(
                ErrorKind.INVALID,
                "operations must be a list of objects.",
                'Example: [{"action": "remove", "old_text": "..."}, {"action": "add", '
                '"content": "..."}]',
            )
        return target, [_operation(op) for op in raw_ops]
    if action == "show":
        return target, None
    if action is None:
        raise MemoryWriteError(
            ErrorKind.INVALID,
            "No action given.",
            "Pass action (show/add/replace/remove) or a list of operations.",
        )
    return target, [_operation(args)]


def _operation(raw: Mapping[str, Any]) -> Operation:
    action = raw.get("action")
    if action not in ("add", "replace", "remove"):
        raise MemoryWriteError(
            ErrorKind.INVALID,
            f"Unknown action {action!r}.",
            "Use one of: show, add, replace, remove.",
        )
    for key in ("content", "old_text"):
        if raw.get(key) is not None and not isinstance(raw.get(key), str):
            raise MemoryWriteError(ErrorKind.INVALID, f"{key} must be a string.", "Retry.")
    return Operation(
        action,
        content=raw.get("content"),
        old_text=raw.get("old_text"),
        keep_both=raw.get("keep_both") is True,
    )
