"""A change to a skill as a value, and what it does to the folder — computed, not yet written.

:class:`Change` is what the ``skill_manage`` tool, the CLI and proposals all
carry; it serialises to JSON so a proposal can hold one. :func:`plan` turns a
change and the folder's current snapshot into the snapshot it would produce,
plus one human line per effect. It is pure: nothing touches the disk until
the library has validated and scanned the planned result.

``patch`` replaces text exactly (no fuzzy matching, which can hit the wrong
place): the old text must occur once, or ``replace_all`` must be asked for.
"""

from __future__ import annotations

import base64
import difflib
from dataclasses import dataclass
from typing import Any, Literal, get_args

from kenning.skills.errors import ErrorKind, SkillError
from kenning.skills.files import Snapshot
from kenning.skills.model import SKILL_FILE, check_name
from kenning.skills.validate import check_support_path, is_text

Action = Literal["create", "patch", "edit", "delete", "write_file", "remove_file"]
ACTIONS: tuple[str, ...] = get_args(Action)


@dataclass(frozen=True)
class Change:
    action: Action
    name: str
    content: str | None = None  # create / edit: the whole SKILL.md; write_file: the file's text
    data: bytes | None = None  # write_file: binary content (assets/ only)
    old: str | None = None  # patch
    new: str | None = None  # patch
    file: str | None = None  # patch (default SKILL.md), write_file, remove_file
    replace_all: bool = False

    def describe(self) -> str:
        target = f" ({self.file})" if self.file and self.action != "create" else ""
        return f"{self.action.replace('_', ' ')} '{self.name}'{target}"

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"action": self.action, "name": self.name}
        for key in ("content", "old", "new", "file"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        if self.data is not None:
            out["data_base64"] = base64.b64encode(self.data).decode("ascii")
        if self.replace_all:
            out["replace_all"] = True
        return out

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> Change:
        data = raw.get("data_base64")
        return checked(
            cls(
                action=raw.get("action"),  # type: ignore[arg-type]  # checked() below
                name=raw.get("name"),  # type: ignore[arg-type]
                content=raw.get("content"),
                data=base64.b64decode(data) if isinstance(data, str) else None,
                old=raw.get("old"),
                new=raw.get("new"),
                file=raw.get("file"),
                replace_all=bool(raw.get("replace_all", False)),
            )
        )


def _invalid(message: str, next_step: str) -> SkillError:
    return SkillError(ErrorKind.INVALID, message, next_step)


def checked(change: Change) -> Change:
    """``change`` with its arguments checked and its path normalised, or SkillError."""
    if change.action not in ACTIONS:
        raise _invalid(f"Unknown action {change.action!r}.", f"Use one of: {', '.join(ACTIONS)}.")
    check_name(change.name)
    for key in ("content", "old", "new", "file"):
        value = getattr(change, key)
        if value is not None and not isinstance(value, str):
            raise _invalid(f"'{key}' must be text.", "Retry with a string value.")
    action = change.action
    if action in ("create", "edit") and not (change.content or "").strip():
        raise _invalid(
            f"'{action}' needs content: the whole SKILL.md (front matter, then the body).",
            "Pass content starting with '---', name, description, '---', then the body.",
        )
    if action == "patch":
        if not change.old:
            raise _invalid(
                "'patch' needs old_string: the exact text to replace.",
                "Copy it from skill_view, long enough to occur once.",
            )
        if change.new is None:
            raise _invalid("'patch' needs new_string (it may be empty to delete text).", "Retry.")
        if change.old == change.new:
            raise _invalid("old_string and new_string are the same; nothing to change.", "")
        if change.file not in (None, SKILL_FILE):
            return _with_file(change, check_support_path(change.file))
        return _with_file(change, SKILL_FILE)
    if action in ("write_file", "remove_file"):
        path = check_support_path(change.file)
        if action == "write_file" and change.content is None and change.data is None:
            raise _invalid("'write_file' needs content: the file's full text.", "Retry.")
        if change.data is not None and not path.startswith("assets/") and not is_text(change.data):
            raise _invalid(f"{path}: binary content belongs under assets/.", "Retry.")
        return _with_file(change, path)
    return change


def _with_file(change: Change, path: str) -> Change:
    if change.file == path:
        return change
    return Change(**{**change.__dict__, "file": path})


@dataclass(frozen=True)
class Plan:
    after: Snapshot
    touched: frozenset[str]  # files written or removed
    effects: tuple[str, ...]  # one human line each


def plan(change: Change, current: Snapshot, *, exists: bool) -> Plan:
    """The folder ``change`` would produce from ``current`` (pure; ``delete`` is not planned)."""
    name = change.name
    if change.action == "create":
        if exists:
            raise SkillError(
                ErrorKind.EXISTS,
                f"A skill named '{name}' already exists.",
                f"Improve it with patch or edit (read it first with skill_view(name='{name}')), "
                "or choose another name.",
            )
        assert change.content is not None
        return Plan(
            {SKILL_FILE: change.content.encode("utf-8")}, frozenset({SKILL_FILE}), ("created",)
        )
    if not exists:
        raise not_found(name)
    after = dict(current)
    if change.action == "edit":
        assert change.content is not None
        after[SKILL_FILE] = change.content.encode("utf-8")
        return Plan(after, frozenset({SKILL_FILE}), ("rewrote SKILL.md",))
    assert change.file is not None
    path = change.file
    if change.action == "write_file":
        data = change.data if change.data is not None else (change.content or "").encode("utf-8")
        verb = "replaced" if path in current else "added"
        after[path] = data
        return Plan(after, frozenset({path}), (f"{verb} {path} ({len(data):,} bytes)",))
    if change.action == "remove_file":
        if path not in current:
            raise SkillError(
                ErrorKind.NOT_FOUND,
                f"Skill '{name}' has no file {path}.",
                files_hint(current),
            )
        del after[path]
        return Plan(after, frozenset({path}), (f"removed {path}",))
    return _patch(change, current, after, path)


def _patch(change: Change, current: Snapshot, after: Snapshot, path: str) -> Plan:
    assert change.old is not None and change.new is not None
    raw = current.get(path)
    if raw is None:
        raise SkillError(
            ErrorKind.NOT_FOUND, f"Skill '{change.name}' has no file {path}.", files_hint(current)
        )
    if not is_text(raw):
        raise _invalid(
            f"{path} is not text and cannot be patched.", "Use write_file to replace it."
        )
    text = raw.decode("utf-8")
    count = text.count(change.old)
    if count == 0:
        raise SkillError(
            ErrorKind.NO_MATCH,
            f"old_string does not occur in {path} of skill '{change.name}'."
            + _closest(text, change.old),
            f"Call skill_view(name='{change.name}'"
            + (f", file='{path}'" if path != SKILL_FILE else "")
            + ") and copy the text exactly (spaces and line breaks included).",
        )
    if count > 1 and not change.replace_all:
        lines = [str(i) for i, line in enumerate(text.splitlines(), 1) if change.old in line]
        at = f" (lines {', '.join(lines[:10])})" if lines else ""
        raise SkillError(
            ErrorKind.AMBIGUOUS,
            f"old_string occurs {count} times in {path}{at}.",
            "Include more surrounding text so it occurs once, or set replace_all to change "
            "every occurrence.",
        )
    after[path] = text.replace(change.old, change.new).encode("utf-8")
    times = f"{count} replacements" if count > 1 else "1 replacement"
    return Plan(after, frozenset({path}), (f"patched {path} ({times})",))


def _closest(text: str, old: str) -> str:
    if "\n" in old.strip() or len(old) > 300:
        return ""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    near = difflib.get_close_matches(old.strip(), lines, n=1, cutoff=0.6)
    return f" The closest line is: {near[0][:200]!r}." if near else ""


def files_hint(current: Snapshot) -> str:
    """The next step after naming a file a skill does not have: the files it has."""
    support = sorted(f for f in current if f != SKILL_FILE)
    if not support:
        return "It has no support files, only SKILL.md (call skill_view without file)."
    return "Its files are: " + ", ".join(support[:30]) + "."


# The tool layer adds how to search to this hint: the call's name depends on the host.
CHECK_THE_NAME = "Check the name in the skills list."


def not_found(name: str) -> SkillError:
    return SkillError(ErrorKind.NOT_FOUND, f"There is no skill named '{name}'.", CHECK_THE_NAME)
