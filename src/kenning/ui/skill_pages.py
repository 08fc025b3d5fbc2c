"""Skills: the library with status, author and use; one skill rendered; proposals; checks.

Everything is ``SkillLibrary`` (``kenning skills …``'s library): ``list_skills``,
``view`` (with ``use=False``: looking is not using), ``accept``/``reject``,
``lint``/``scan_all``/``leftovers`` and the curator's ``plan`` (what a run
would change, changing nothing). Lint and scan read every skill's files, so
the list runs them when asked (``?check=1``), not on every visit.

SKILL.md is rendered from Markdown with raw HTML disabled: a skill's text
never becomes markup in the page.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from markdown_it import MarkdownIt
from markupsafe import Markup
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from kenning.home import Home
from kenning.skills.catalog import SkillInfo
from kenning.skills.curator import Curator, Transition
from kenning.skills.errors import SkillError
from kenning.skills.library import ChangeResult, SkillLibrary, SkillView
from kenning.skills.lint import leftovers, lint, scan_all
from kenning.skills.proposals import Proposal
from kenning.ui.app import Ui
from kenning.ui.security import checked_form

_MARKDOWN = MarkdownIt("commonmark", {"html": False, "linkify": False}).enable("table")


def render_markdown(text: str) -> Markup:
    return Markup(_MARKDOWN.render(text))  # html disabled: the source's tags come out escaped


@dataclass
class Checks:
    lint: dict[str, list[str]] = field(default_factory=dict)  # skill -> problems
    scan: dict[str, list[str]] = field(default_factory=dict)  # skill -> findings
    leftovers: list[str] = field(default_factory=list)


@dataclass
class Library:
    skills: list[SkillInfo]
    proposals: list[tuple[Proposal, bool]]  # (proposal, stale)
    curator: list[Transition]
    checks: Checks | None
    outcome: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)


def _library(home: Home) -> SkillLibrary:
    return SkillLibrary.for_home(home)


def overview(home: Home, check: bool) -> Library:
    library = _library(home)
    checks = None
    if check:
        checks = Checks(
            {name: [str(p) for p in found] for name, found in lint(library).items() if found},
            {
                name: [f.describe() for f in found]
                for name, found in scan_all(library).items()
                if found
            },
            [item.describe(library.dir) for item in leftovers(library)],
        )
    return Library(
        library.list_skills(archived=True, deleted=True),
        library.proposal_states(),
        list(Curator(library).plan().transitions),
        checks,
    )


def decide(home: Home, proposal_id: str, verdict: str) -> Library:
    library = _library(home)
    done: list[str] = []
    refused: list[str] = []
    try:
        act = library.accept if verdict == "accept" else library.reject
        done = _report(act(proposal_id, reason="kenning ui"))
    except SkillError as exc:
        refused = [f"refused: {exc.message}", *([exc.next_step] if exc.next_step else [])]
    found = overview(home, check=False)
    found.outcome, found.refused = done, refused
    return found


def _report(result: ChangeResult) -> list[str]:
    """As ``kenning skills`` reports a change."""
    if not result.changed:
        return [f"{result.name}: nothing to change ({'; '.join(result.effects)})"]
    lines = [f"{result.name}: {effect}" for effect in result.effects]
    if result.commit:
        lines.append(f"recorded as commit {result.commit}")
    return lines


@dataclass
class OneSkill:
    info: SkillInfo | None
    view: SkillView | None
    problem: str | None
    html: Markup | None
    text: str | None  # a support file, shown as text


def one_skill(home: Home, name: str, file: str | None) -> OneSkill:
    library = _library(home)
    try:
        info = library.info(name)
    except SkillError as exc:
        return OneSkill(None, None, str(exc), None, None)
    try:
        view = library.view(name, file, use=False)
    except SkillError as exc:
        return OneSkill(info, None, str(exc), None, None)
    if view.file != "SKILL.md":
        text = view.data.decode("utf-8", errors="replace")
        return OneSkill(info, view, None, None, text)
    return OneSkill(info, view, None, render_markdown(view.text), None)


def routes(ui: Ui) -> list[BaseRoute]:
    async def page(request: Request) -> Response:
        check = request.query_params.get("check") == "1"
        found = await ui.call(overview, ui.home, check)
        return ui.page(request, "skills.html", title="Skills", library=found, checked=check)

    async def skill(request: Request) -> Response:
        name = request.path_params["name"]
        found = await ui.call(one_skill, ui.home, name, request.query_params.get("file"))
        status = 404 if found.info is None else 200
        return ui.page(request, "skill.html", status, title=f"Skill {name}", name=name, skill=found)

    async def proposal(request: Request) -> Response:
        verdict = request.path_params["verdict"]
        if verdict not in ("accept", "reject"):
            raise HTTPException(404, f"a proposal is accepted or rejected, not {verdict!r}")
        await checked_form(request, ui.guard)
        found = await ui.call(decide, ui.home, request.path_params["pid"], verdict)
        status = 422 if found.refused else 200
        return ui.page(request, "skills.html", status, title="Skills", library=found, checked=False)

    return [
        Route("/skills", page, methods=["GET"]),
        Route("/skills/{name:str}", skill, methods=["GET"]),
        Route("/skills/proposals/{pid:str}/{verdict:str}", proposal, methods=["POST"]),
    ]
