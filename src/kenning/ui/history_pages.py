"""History: the home's git log as a timeline, each change's diff, and revert.

The log, the diffs and the revert are ``kenning.history.History`` and
``kenning.memory.revert.revert_change`` — the same calls as ``kenning memory
log/diff/revert``. Revert undoes a change to hot memory entry by entry as a
new recorded write, after a confirmation page that shows what it undoes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from kenning.history import Commit, HistoryError
from kenning.home import Home
from kenning.memory.revert import revert_change
from kenning.memory.store import MemoryFileError, MemoryWriteError, Target
from kenning.memory.wording import refusal_lines, report_lines
from kenning.ui.app import Ui
from kenning.ui.security import checked_form

PAGE = 50


@dataclass(frozen=True)
class Entry:
    commit: Commit
    kind: str  # memory, skills, journal, dreaming, review, hand edit, other
    revertible: bool


@dataclass
class Reverted:
    done: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)


def kind_of(commit: Commit) -> str:
    """Who made a change, from its subject: the writers' own prefixes."""
    subject = commit.message.lower()
    if subject.startswith(("hand edit", "catch-up")):
        return "hand edit"
    for word, kind in (("dream", "dreaming"), ("review", "review")):
        if word in subject.split(":", 1)[0] or subject.startswith(word):
            return kind
    for prefix in ("memory", "skills", "journal"):
        if subject.startswith(prefix):
            return prefix
    return "other"


def memory_files(home: Home) -> set[str]:
    return {str(home.memory.path(t).relative_to(home.root)) for t in Target}


def timeline(home: Home, limit: int) -> list[Entry]:
    hot = memory_files(home)
    return [
        Entry(commit, kind_of(commit), bool(hot & set(commit.files)))
        for commit in home.history.log(limit=limit)
    ]


def change(home: Home, rev: str) -> tuple[str, str]:
    """(full revision, its patch); HistoryError for an unknown one."""
    full = home.history.resolve(rev)
    return full, home.history.change(full)


def revert(home: Home, rev: str) -> Reverted:
    try:
        outcome = revert_change(home.memory, home.history, rev)
    except (HistoryError, MemoryFileError) as exc:
        return Reverted(refused=[f"refused: {exc}"])
    except MemoryWriteError as exc:
        return Reverted(refused=refusal_lines(exc))
    out = Reverted()
    for result in outcome.results:
        lines = report_lines(result)
        out.done += lines.done
        out.warnings += lines.warnings
    out.warnings += [f"note: {note}" for note in outcome.notes]
    if not outcome.results:
        out.done.append("Nothing to undo: the change's effect is already gone.")
    return out


def routes(ui: Ui) -> list[BaseRoute]:
    async def page(request: Request) -> Response:
        try:
            limit = max(1, min(int(request.query_params.get("n", PAGE)), 1000))
        except ValueError:
            limit = PAGE
        entries = await ui.call(timeline, ui.home, limit)
        return ui.page(
            request, "history.html", title="History", entries=entries, limit=limit, more=limit * 2
        )

    async def _change(request: Request) -> tuple[str, str]:
        rev = request.path_params["rev"]
        try:
            return await ui.call(change, ui.home, rev)
        except HistoryError as exc:
            raise HTTPException(404, str(exc)) from exc

    async def diff(request: Request) -> Response:
        full, patch = await _change(request)
        return ui.page(request, "diff.html", title=f"Change {full[:10]}", rev=full, patch=patch)

    async def confirm(request: Request) -> Response:
        full, patch = await _change(request)
        return ui.page(
            request, "revert.html", title=f"Revert {full[:10]}", rev=full, patch=patch, result=None
        )

    async def do_revert(request: Request) -> Response:
        await checked_form(request, ui.guard)
        full, patch = await _change(request)
        result = await ui.call(revert, ui.home, full)
        status = 422 if result.refused else 200
        return ui.page(
            request,
            "revert.html",
            status,
            title=f"Revert {full[:10]}",
            rev=full,
            patch=patch,
            result=result,
        )

    return [
        Route("/history", page, methods=["GET"]),
        Route("/history/{rev:str}", diff, methods=["GET"]),
        Route("/history/{rev:str}/revert", confirm, methods=["GET"]),
        Route("/history/{rev:str}/revert", do_revert, methods=["POST"]),
    ]
