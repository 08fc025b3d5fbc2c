"""The journal by day, DREAMS.md, and what dreaming would promote now.

The journal is ``Journal.days``/``read``; the candidates are a dry run of
``Dreamer`` (``kenning dream --dry-run``: it writes nothing), each shown with
its numbers beside the ``[dream]`` gates and the verdict dreaming gave it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from markupsafe import Markup
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from kenning.fsutil import UnsafeFileError, read_regular
from kenning.home import Home
from kenning.journal import JournalError
from kenning.learning.dream import PHASES, Dreamer, DreamReport, Scored
from kenning.ui.app import Ui
from kenning.ui.skill_pages import render_markdown

DREAMS_FILE = "DREAMS.md"
MAX_DREAMS_BYTES = 2_000_000


@dataclass(frozen=True)
class Day:
    days: list[date]  # newest first
    day: date | None
    html: Markup | None
    problem: str | None


def journal_day(home: Home, wanted: str | None) -> Day:
    days = sorted(home.journal.days(), reverse=True)
    try:
        day = date.fromisoformat(wanted) if wanted else (days[0] if days else None)
    except ValueError:
        day = days[0] if days else None
    if day is None:
        return Day(days, None, None, None)
    try:
        text = home.journal.read(day)
    except JournalError as exc:
        return Day(days, day, None, str(exc))
    return Day(days, day, render_markdown(text) if text is not None else None, None)


@dataclass(frozen=True)
class Gate:
    name: str
    value: str
    need: str
    passed: bool


@dataclass(frozen=True)
class Candidate:
    scored: Scored
    gates: list[Gate]


@dataclass(frozen=True)
class Dreams:
    html: Markup | None
    problem: str | None
    report: DreamReport
    candidates: list[Candidate]


def gates_of(home: Home, item: Scored, today: date) -> list[Gate]:
    """The candidate's numbers against each configured gate (the verdict is dreaming's)."""
    cfg = home.config.dream
    c = item.candidate
    age = (today - c.newest).days
    return [
        Gate("score", f"{item.score:.2f}", f"≥ {cfg.min_score:g}", item.score >= cfg.min_score),
        Gate(
            "recalls",
            str(len(c.recalls)),
            f"≥ {cfg.min_recalls}",
            len(c.recalls) >= cfg.min_recalls,
        ),
        Gate(
            "distinct queries",
            str(len(c.queries)),
            f"≥ {cfg.min_distinct_queries}",
            len(c.queries) >= cfg.min_distinct_queries,
        ),
        Gate("age", f"{age} d", f"≤ {cfg.max_age_days} d", age <= cfg.max_age_days),
    ]


def dreams(home: Home) -> Dreams:
    html, problem = None, None
    try:
        found = read_regular(home.root / DREAMS_FILE, max_bytes=MAX_DREAMS_BYTES)
        if found is not None:
            html = render_markdown(found[0].decode("utf-8", errors="replace"))
    except UnsafeFileError as exc:
        problem = f"{exc}: not shown"
    report = Dreamer(home).run(phases=PHASES, dry_run=True)
    today = report.now.date()
    shown = [Candidate(item, gates_of(home, item, today)) for item in report.considered]
    return Dreams(html, problem, report, shown)


def routes(ui: Ui) -> list[BaseRoute]:
    async def journal(request: Request) -> Response:
        found = await ui.call(journal_day, ui.home, request.query_params.get("day"))
        return ui.page(request, "journal.html", title="Journal", journal=found)

    async def dreaming(request: Request) -> Response:
        found = await ui.call(dreams, ui.home)
        return ui.page(
            request, "dreams.html", title="Dreaming", dreams=found, config=ui.home.config.dream
        )

    return [
        Route("/journal", journal, methods=["GET"]),
        Route("/dreams", dreaming, methods=["GET"]),
    ]
