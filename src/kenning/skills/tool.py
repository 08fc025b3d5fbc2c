"""The model's skill tools: ``skill_view``, ``skills_search`` and ``skill_manage``.

Each is a callable taking the model's arguments (a dict) and returning a dict
written for the model: a success says what changed and that it is done; a
failure says what is wrong, the current state where it helps, and the next
step. Tools are built per session (:func:`session_skill_tools`) on one library, so the
reads ``skill_view`` records are the ones ``skill_manage``'s guards check; the
``automated`` flag marks the background review, which is held to the guards
and, in ``propose`` mode, only proposes.
"""

from __future__ import annotations

from collections.abc import Mapping, MutableMapping
from typing import Any

from kenning.skills.changes import ACTIONS, CHECK_THE_NAME, Change
from kenning.skills.errors import ErrorKind, SkillError
from kenning.skills.guards import Writer
from kenning.skills.library import SkillLibrary
from kenning.skills.model import SKILL_FILE
from kenning.skills.rank import Doc, scores
from kenning.skills.validate import SUPPORT_DIRS, is_text

MAX_FAILURES_PER_TURN = 3

VIEW_SCHEMA: dict[str, Any] = {
    "name": "skill_view",
    "description": (
        "Load a skill: its SKILL.md (when it applies, steps, pitfalls, how to verify) or one of "
        "its support files. Load a skill whenever its name or description in your skills list "
        "matches the task, even partly, and follow it. Loading also counts as using it."
    ),
    "parameters": {
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "The skill's name, from the skills list."},
            "file": {
                "type": "string",
                "description": "A support file, e.g. references/api.md or scripts/check.sh "
                "(omit for SKILL.md).",
            },
        },
        "required": ["name"],
    },
}

SEARCH_SCHEMA: dict[str, Any] = {
    "name": "skills_search",
    "description": (
        "Find skills by topic when the skills list in your prompt does not show one that fits "
        "(it lists only some when there are many). Matches names, tags and descriptions; "
        "retired (archived) skills are included and come back when you load them."
    ),
    "parameters": {
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "Words describing the task."},
            "limit": {"type": "integer", "description": "At most this many results (10)."},
        },
        "required": ["query"],
    },
}

MANAGE_DESCRIPTION = f"""\
Create and improve your skills: procedures for recurring kinds of task, loaded with skill_view.

Save a skill after a task that needed a non-trivial method you would want again, or when the \
user corrected how you work. Prefer improving a skill you used (patch) over creating a new one. \
Keep skills class-level ("deploy-django-app", not "deploy-django-app-for-bob-tuesday"). A good \
body says when the skill applies, the steps, pitfalls as rules with a one-clause reason, and how \
to verify the result. Leave out one-off stories, dates, ticket numbers, transient errors and \
anything unresolved.

Actions:
- create: name + content = the whole SKILL.md:
  ---
  name: <same as the name argument>
  description: <what it is for and when to use it, <= 1024 chars>
  tags: [topic]
  ---
  <body>
- patch: name + old_string (exact text, occurring once) + new_string; file for a support file; \
replace_all to change every occurrence.
- edit: name + content = the whole new SKILL.md.
- delete: name (moved to an archive; recoverable).
- write_file: name + file + content; files live under {", ".join(d + "/" for d in SUPPORT_DIRS)}.
- remove_file: name + file.
Read a skill (skill_view) before you change it. Every change is checked and recorded."""

MANAGE_SCHEMA: dict[str, Any] = {
    "name": "skill_manage",
    "description": MANAGE_DESCRIPTION,
    "parameters": {
        "type": "object",
        "properties": {
            "action": {"type": "string", "enum": list(ACTIONS)},
            "name": {"type": "string", "description": "The skill's name (its folder)."},
            "content": {
                "type": "string",
                "description": "create/edit: the whole SKILL.md; write_file: the file's text.",
            },
            "old_string": {"type": "string", "description": "patch: the exact text to replace."},
            "new_string": {"type": "string", "description": "patch: the replacement text."},
            "replace_all": {"type": "boolean", "description": "patch: every occurrence."},
            "file": {
                "type": "string",
                "description": "patch/write_file/remove_file: e.g. scripts/check.sh.",
            },
            "reason": {"type": "string", "description": "Why, in one line (kept in history)."},
        },
        "required": ["action", "name"],
    },
}


# How the model finds a skill by words, as hints name it. Over MCP the search
# tool is another one (``skill_list``), so every tool takes the call to name.
FIND_CALL = "skills_search(query)"


def _failure(exc: SkillError, find: str = FIND_CALL) -> dict[str, Any]:
    next_step = exc.next_step or "Fix the request and retry."
    if next_step == CHECK_THE_NAME:
        next_step = f"{next_step.rstrip('.')}, or find it with {find}."
    result: dict[str, Any] = {
        "success": False,
        "error": exc.kind.value,
        "message": exc.message,
        "next_step": next_step,
    }
    if exc.problems:
        result["problems"] = exc.problems
    return result


class SkillViewTool:
    name = "skill_view"
    schema = VIEW_SCHEMA

    def __init__(
        self,
        library: SkillLibrary,
        session_id: str,
        *,
        automated: bool = False,
        find: str = FIND_CALL,
    ) -> None:
        self.library = library
        self.session_id = session_id
        self.automated = automated
        self.find = find

    def __call__(self, args: Mapping[str, Any]) -> dict[str, Any]:
        name, file = args.get("name"), args.get("file")
        if not isinstance(name, str) or (file is not None and not isinstance(file, str)):
            return _failure(SkillError(ErrorKind.INVALID, "name (and file) must be text.", ""))
        try:
            view = self.library.view(name, file, session_id=self.session_id)
        except SkillError as exc:
            failed = _failure(exc, self.find)
            if exc.kind is ErrorKind.NOT_FOUND and file is None:
                failed["similar"] = _similar(self.library, name)
            return failed
        result: dict[str, Any] = {"success": True, "name": view.name, "file": view.file}
        if is_text(view.data):
            result["content"] = view.text
        else:
            result["content"] = f"(binary file, {len(view.data):,} bytes; not shown)"
        if view.file == SKILL_FILE:
            result["support_files"] = list(view.files)
        if view.reactivated_from:
            result["note"] = f"This skill was {view.reactivated_from}; using it made it active."
        return result


class SkillsSearchTool:
    name = "skills_search"
    schema = SEARCH_SCHEMA

    def __init__(self, library: SkillLibrary, session_id: str, *, automated: bool = False) -> None:
        self.library = library
        self.session_id = session_id
        self.automated = automated

    def __call__(self, args: Mapping[str, Any]) -> dict[str, Any]:
        query = args.get("query")
        limit = args.get("limit", 10)
        if not isinstance(query, str) or not query.strip():
            return _failure(SkillError(ErrorKind.INVALID, "query must be non-empty text.", ""))
        limit = limit if isinstance(limit, int) and 0 < limit <= 50 else 10
        hits = search(self.library, query, limit=limit)
        if not hits:
            return {
                "success": True,
                "results": [],
                "message": "No skill matches these words. Try other words for the task, or "
                "work it out and save the method with skill_manage if it is worth keeping.",
            }
        return {
            "success": True,
            "results": hits,
            "message": "Load one with skill_view(name) if it fits the task.",
        }


def search(library: SkillLibrary, query: str, *, limit: int = 10) -> list[dict[str, Any]]:
    """The best-matching live skills (archived ones included) as result dicts."""
    infos = [i for i in library.list_skills(archived=True) if i.meta is not None]
    ranked = scores(query, [Doc(i.name, i.description, i.tags) for i in infos])
    best = sorted(
        ((score, info) for score, info in zip(ranked, infos, strict=True) if score > 0),
        key=lambda p: (-round(p[0], 9), p[1].name),
    )[:limit]
    return [
        {"name": i.name, "description": i.description, "tags": list(i.tags), "status": i.status}
        for _, i in best
    ]


def _similar(library: SkillLibrary, name: str) -> list[str]:
    return [hit["name"] for hit in search(library, name.replace("-", " "), limit=5)]


class SkillManageTool:
    """Counts failed calls in the current turn, like the memory tool, to stop retry loops.

    A caller sharing one tool between sessions or threads passes each call's
    ``writer``, ``reason`` and turn ``failures``; nothing of a call is stored here.
    """

    name = "skill_manage"
    schema = MANAGE_SCHEMA

    def __init__(
        self,
        library: SkillLibrary,
        session_id: str,
        *,
        automated: bool = False,
        reason: str = "",
        find: str = FIND_CALL,
    ) -> None:
        self.library = library
        self.find = find
        self.writer = Writer("agent", session_id, automated)
        self.reason = reason or ("background review" if automated else "skill_manage tool")
        self._failures: dict[str, int] = {}

    def begin_turn(self) -> None:
        self._failures.clear()

    def __call__(
        self,
        args: Mapping[str, Any],
        *,
        writer: Writer | None = None,
        reason: str | None = None,
        failures: MutableMapping[str, int] | None = None,
    ) -> dict[str, Any]:
        counts = self._failures if failures is None else failures
        try:
            change = _change(args)
            why = args.get("reason")
            given = why.strip() if isinstance(why, str) and why.strip() else None
            result = self.library.apply(
                change, writer or self.writer, reason=given or reason or self.reason
            )
        except SkillError as exc:
            return _failed(exc, counts, self.find)
        counts[self.name] = 0
        effects = "; ".join(result.effects)
        if result.proposal is not None:
            return {
                "success": True,
                "done": True,
                "proposed": True,
                "proposal_id": result.proposal.id,
                "message": f"Proposed {change.describe()} as proposal {result.proposal.id}; it "
                "waits for the user's review and changes nothing until accepted. Done — do not "
                "repeat it.",
            }
        return {
            "success": True,
            "done": True,
            "message": f"Skill '{change.name}': {effects}. Saved and recorded. Done — do not "
            "repeat this change.",
        }


def _failed(exc: SkillError, counts: MutableMapping[str, int], find: str) -> dict[str, Any]:
    counts["skill_manage"] = counts.get("skill_manage", 0) + 1
    result = _failure(exc, find)
    if exc.kind in (ErrorKind.PROTECTED,):
        result["done"] = True
    if counts["skill_manage"] >= MAX_FAILURES_PER_TURN:
        result["done"] = True
        result["next_step"] = (
            f"{MAX_FAILURES_PER_TURN} skill changes failed this turn. Stop retrying: carry on "
            "with the task and mention that the skill could not be updated."
        )
    return result


def _change(args: Mapping[str, Any]) -> Change:
    action = args.get("action")
    if action not in ACTIONS:
        raise SkillError(
            ErrorKind.INVALID, f"Unknown action {action!r}.", f"Use one of: {', '.join(ACTIONS)}."
        )
    replace_all = args.get("replace_all", False)
    return Change(
        action=action,
        name=args.get("name"),  # type: ignore[arg-type]  # checked by the library
        content=args.get("content"),
        old=args.get("old_string"),
        new=args.get("new_string"),
        file=args.get("file"),
        replace_all=replace_all is True,
    )


def session_skill_tools(
    library: SkillLibrary, session_id: str, *, automated: bool = False
) -> tuple[SkillViewTool, SkillsSearchTool, SkillManageTool]:
    """The three tools of one session, sharing the library (and so its read log)."""
    return (
        SkillViewTool(library, session_id, automated=automated),
        SkillsSearchTool(library, session_id, automated=automated),
        SkillManageTool(library, session_id, automated=automated),
    )
