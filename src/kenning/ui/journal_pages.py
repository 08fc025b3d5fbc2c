"""The journal by day, DREAMS.md, and what dreaming would promote now.

The journal is ``Journal.days``/``read``; the candidates are a dry run of
``Dreamer`` (``kenning dream --dry-run``: it writes nothing), each shown with
its numbers beside the ``[dream]`` gates and the verdict dreaming gave it.

A dry run weighs every recent statement against every other (seconds on a
big archive), so it runs off the request path (``DreamWorker``: one thread
per server, begun with the server) and the fragment answers at once: the
result while its inputs are unchanged (MEMORY.md, the journal, the archive's
newest message, the recall log, the day); else "computing…", polling until
it is ready, beside the last result labelled as from before the change.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from markupsafe import Markup
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from kenning import clock
from kenning.fsutil import UnsafeFileError, read_regular
from kenning.home import Home
from kenning.journal import JournalError
from kenning.learning.dream import PHASES, Dreamer, DreamReport, Scored
from kenning.memory.store import Target
from kenning.ui.app import Ui
from kenning.ui.dream_worker import DreamWorker
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
    report: DreamReport
    candidates: list[Candidate]


def _stamp(path: Path) -> tuple[int, int] | None:
    try:
        info = path.stat()
    except OSError:
        return None
    return info.st_mtime_ns, info.st_size


def inputs(home: Home) -> tuple[object, ...]:
    """What a dry run reads, cheaply: files' stamps, the archive's newest message, recalls."""
    journal = home.layout.journal_dir
    days = sorted(journal.glob("*.md")) if journal.is_dir() else []
    archive: tuple[object, ...] = ()
    if home.has_archive:
        storage = home.archive.storage
        window = home.config.dream.max_age_days + home.config.dream.rem_days + 1
        since = clock.timestamp() - window * 86_400
        archive = (storage.sessions.newest_message_at(), len(storage.recalls.hits_since(since)))
    return (
        clock.local().date(),
        _stamp(home.memory.path(Target.MEMORY)),
        tuple((p.name, _stamp(p)) for p in days),
        archive,
    )


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


def dreams_file(home: Home) -> tuple[Markup | None, str | None]:
    """DREAMS.md rendered, or why it is not shown."""
    try:
        found = read_regular(home.root / DREAMS_FILE, max_bytes=MAX_DREAMS_BYTES)
    except UnsafeFileError as exc:
        return None, f"{exc}: not shown"
    if found is None:
        return None, None
    return render_markdown(found[0].decode("utf-8", errors="replace")), None


def dry_run(home: Home, dreamer: Callable[[Home], Dreamer] = Dreamer) -> Dreams:
    report = dreamer(home).run(phases=PHASES, dry_run=True)
    today = report.now.date()
    shown = [Candidate(item, gates_of(home, item, today)) for item in report.considered]
    return Dreams(report, shown)


def routes(ui: Ui) -> list[BaseRoute]:
    async def journal(request: Request) -> Response:
        found = await ui.call(journal_day, ui.home, request.query_params.get("day"))
        return ui.page(request, "journal.html", title="Journal", journal=found)

    async def dreaming(request: Request) -> Response:
        html, problem = await ui.call(dreams_file, ui.home)
        return ui.page(
            request,
            "dreams.html",
            title="Dreaming",
            html=html,
            problem=problem,
            config=ui.home.config.dream,
        )

    worker = DreamWorker(ui.home, lambda home: dry_run(home, ui.dreamer))
    ui.on_start.append(lambda: worker.want(inputs(ui.home)))  # a new server's cache is cold
    ui.on_close.append(worker.stop)

    async def candidates(request: Request) -> Response:
        key = await ui.call(inputs, ui.home)
        state = worker.want(key)
        return ui.page(request, "candidates.html", title="Dreaming candidates", state=state)

    return [
        Route("/journal", journal, methods=["GET"]),
        Route("/dreams", dreaming, methods=["GET"]),
        Route("/dreams/candidates", candidates, methods=["GET"]),
    ]
