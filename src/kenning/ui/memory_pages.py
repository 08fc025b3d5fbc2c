"""Hot memory: MEMORY.md and USER.md with sizes and usage; add, replace and remove.

Writes go through ``MemoryStore`` as ``kenning memory`` does (its lock, budget,
threat scan and commit) and are worded as the CLI words them
(``kenning.memory.wording``). A file that cannot be used is shown with the
reason and, when it no longer parses, its raw text and the backup a refused
write keeps: never an error page.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass, field

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from kenning.history import HistoryError
from kenning.home import Home
from kenning.memory.store import MemoryFileError, MemoryState, MemoryWriteError, Target
from kenning.memory.wording import refusal_lines, report_lines
from kenning.ui.app import Ui
from kenning.ui.security import checked_form, field_of

ACTIONS = ("add", "replace", "remove")
REFUSED = 422  # the page is shown again with the refusal; htmx swaps it in (base.html)


@dataclass
class FileView:
    """One hot-memory file as the page shows it."""

    target: Target
    path: str
    state: MemoryState | None = None
    problem: str | None = None  # why the file cannot be used, with the fix
    raw: str | None = None  # its text, when it no longer parses
    backup: str | None = None  # the copy a refused write keeps of it
    backup_exists: bool = False
    hand_edited: bool = False  # changed on disk since the last recorded change
    sizes: list[int] = field(default_factory=list)


@dataclass
class Outcome:
    """What the last write said: report lines, warnings, or a refusal."""

    done: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)


def file_views(home: Home) -> list[FileView]:
    store = home.memory
    edited = _hand_edited(home)
    views = []
    for target in Target:
        path = store.path(target)
        rel = str(path.relative_to(home.root))
        view = FileView(target, str(path), hand_edited=rel in edited)
        try:
            view.state = store.read(target)
            view.sizes = [len(entry) for entry in view.state.entries]
        except MemoryFileError as exc:
            view.problem = str(exc)
            if exc.problem == "unparseable":
                raw, _ = store.read_raw(target)
                if raw is not None:
                    view.raw = raw.decode("utf-8", errors="replace")
                    backup = store.backup_path(target, raw)
                    view.backup, view.backup_exists = str(backup), backup.exists()
        views.append(view)
    return views


def _hand_edited(home: Home) -> set[str]:
    """Paths under memories/ changed outside Kenning since the last commit."""
    history = home.history
    if not history.available:
        return set()
    try:
        lines = history.uncommitted()
    except (HistoryError, OSError, subprocess.SubprocessError):
        return set()  # a broken repository is `kenning doctor`'s to report, not this page's
    return {line[3:].strip().strip('"') for line in lines}


def write(home: Home, action: str, target: Target, first: str, second: str, both: bool) -> Outcome:
    store = home.memory
    reason = f"kenning ui: memory {action}"
    try:
        if action == "add":
            result = store.add(target, first, reason=reason, keep_both=both)
        elif action == "replace":
            result = store.replace(target, first, second, reason=reason)
        else:
            result = store.remove(target, first, reason=reason)
    except MemoryWriteError as exc:
        return Outcome(refused=refusal_lines(exc))
    except MemoryFileError as exc:
        return Outcome(refused=[f"refused: {exc}"])
    lines = report_lines(result)
    return Outcome(done=lines.done, warnings=lines.warnings)


def routes(ui: Ui) -> list[BaseRoute]:
    async def show(request: Request, outcome: Outcome | None = None) -> Response:
        views = await ui.call(file_views, ui.home)
        status = REFUSED if outcome is not None and outcome.refused else 200
        return ui.page(
            request, "memory.html", status, title="Hot memory", files=views, outcome=outcome
        )

    async def page(request: Request) -> Response:
        return await show(request)

    async def change(request: Request) -> Response:
        action = request.path_params["action"]
        if action not in ACTIONS:
            raise HTTPException(404, f"no memory action {action!r}; use one of {list(ACTIONS)}")
        form = await checked_form(request, ui.guard)
        try:
            target = Target(field_of(form, "target", "memory"))
        except ValueError:
            target = Target.MEMORY
        first = field_of(form, "old" if action != "add" else "text")
        second = field_of(form, "new")
        both = field_of(form, "keep_both") == "on"
        outcome = await ui.call(write, ui.home, action, target, first, second, both)
        return await show(request, outcome)

    return [
        Route("/memory", page, methods=["GET"]),
        Route("/memory/{action:str}", change, methods=["POST"]),
    ]
