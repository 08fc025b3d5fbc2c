"""The dashboard: hot memory over time, the archive by day, what is recalled, skill use.

- Memory usage over time comes from history: the MEMORY.md and USER.md of
  each recent memory commit, read in one ``git cat-file --batch`` (one
  process, not one per commit), measured as the store measures entries.
- The archive: its message count and file size, sessions started per day.
- Most recalled: what searches returned over the last 30 days (the recall
  log dreaming promotes from).
- Skill use: each skill's use count from the library.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from markupsafe import Markup
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from kenning import clock
from kenning.history import Commit
from kenning.home import Home
from kenning.memory.entries import UnparseableFileError, decode, parse_entries, usage
from kenning.memory.store import MemoryFileError, Target
from kenning.skills.library import SkillLibrary
from kenning.ui import charts
from kenning.ui.app import Ui

HISTORY_POINTS = 60
DAYS = 30
TOP = 10
SCAN_SESSIONS = 20_000


@dataclass(frozen=True)
class Board:
    memory: dict[str, Markup]  # file name -> its usage over time
    budgets: dict[str, tuple[int, int]]  # file name -> (used now, budget)
    messages: int
    archive_bytes: int
    per_day: Markup
    recalled: Markup
    skills: Markup


def _at_commits(home: Home, commits: list[Commit], rel: str) -> dict[str, int | None]:
    """rev -> the file's usage in chars at that commit (None: absent or unparseable)."""
    history = home.history
    wanted = "".join(f"{c.rev}:{rel}\n" for c in commits).encode()
    done = history.git("cat-file", "--batch", stdin=wanted)
    out: dict[str, int | None] = {}
    data, at = done.stdout, 0
    for commit in commits:
        end = data.find(b"\n", at)
        if end < 0:
            break
        header = data[at:end].split()
        at = end + 1
        if len(header) < 3 or header[1] != b"blob":
            out[commit.rev] = None
            continue
        size = int(header[2])
        blob, at = data[at : at + size], at + size + 1
        try:
            out[commit.rev] = usage(parse_entries(decode(blob)))
        except (UnparseableFileError, UnicodeDecodeError):
            out[commit.rev] = None
    return out


def memory_over_time(home: Home) -> tuple[dict[str, Markup], dict[str, tuple[int, int]]]:
    store = home.memory
    commits = list(reversed(home.history.log(["memories"], limit=HISTORY_POINTS)))
    charted: dict[str, Markup] = {}
    budgets: dict[str, tuple[int, int]] = {}
    for target in Target:
        rel = str(store.path(target).relative_to(home.root))
        sizes = _at_commits(home, commits, rel) if commits else {}
        points = [
            (c.date[:16].replace("T", " "), float(v))
            for c in commits
            if (v := sizes.get(c.rev)) is not None
        ]
        budget = store.budget(target)
        try:
            used = store.read(target).used
            points.append(("now", float(used)))
        except MemoryFileError:
            used = 0
        budgets[target.filename] = (used, budget)
        charted[target.filename] = charts.line(
            points, label=f"{target.filename} usage over time", ceiling=budget, unit=" chars"
        )
    return charted, budgets


def sessions_per_day(home: Home) -> Markup:
    today = clock.local().date()
    first = today - timedelta(days=DAYS - 1)
    counts: Counter[str] = Counter()
    scanned = 0
    while scanned < SCAN_SESSIONS:
        batch = home.archive.sessions(limit=1000, offset=scanned)
        scanned += len(batch)
        for session in batch:
            day = datetime.fromtimestamp(session.started_at, UTC).astimezone().date()
            if day < first:
                scanned = SCAN_SESSIONS
                break
            counts[day.isoformat()] += 1
        if len(batch) < 1000:
            break
    days = [(first + timedelta(days=n)).isoformat() for n in range(DAYS)]
    return charts.line(
        [(day, float(counts[day])) for day in days], label="sessions per day", unit=" sessions"
    )


def most_recalled(home: Home) -> Markup:
    storage = home.archive.storage
    since = clock.timestamp() - DAYS * 86_400
    counts = Counter((kind, item) for _, _, _, kind, item, _ in storage.recalls.hits_since(since))
    top = counts.most_common(TOP)
    messages = storage.index.message_texts([i for (k, i), _ in top if k == "message"])
    chunks = {row[0]: row for row in storage.chunks.lines([i for (k, i), _ in top if k == "chunk"])}
    items = []
    for (kind, item), n in top:
        if kind == "message":
            name = " ".join(messages.get(item, f"message {item}").split())
        else:
            row = chunks.get(item)
            name = f"{row[1]}:{row[2]}-{row[3]}" if row else f"chunk {item}"
        items.append((name, float(n)))
    return charts.bars(items, label="most recalled items", unit=" recalls")


def skill_use(home: Home) -> Markup:
    skills = SkillLibrary.for_home(home).list_skills()
    used = sorted(skills, key=lambda s: (-s.usage.count, s.name))[:TOP]
    return charts.bars(
        [(s.name, float(s.usage.count)) for s in used if s.usage.count], label="skill use"
    )


def board(home: Home) -> Board:
    memory, budgets = memory_over_time(home)
    has_archive = home.has_archive
    messages = home.archive.storage.sessions.count_messages() if has_archive else 0
    db = home.layout.state_db
    size = db.stat().st_size if db.exists() else 0
    return Board(
        memory,
        budgets,
        messages,
        size,
        sessions_per_day(home) if has_archive else charts.line([], label="sessions per day"),
        most_recalled(home) if has_archive else charts.bars([], label="most recalled"),
        skill_use(home),
    )


def routes(ui: Ui) -> list[BaseRoute]:
    async def page(request: Request) -> Response:
        found = await ui.call(board, ui.home)
        return ui.page(
            request, "dashboard.html", title="Dashboard", board=found, bar=charts.usage_bar
        )

    return [Route("/", page, methods=["GET"])]
