"""Dreaming with a controllable clock: gates, provenance, hash check, and DREAMS.md.

Every test runs on one frozen clock (``NOW``), so the journal, the archive's
message stamps, recalls and dreaming all agree on what day it is.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from kenning.agent.loop import AgentSession, AgentSettings
from kenning.archive.store import Message
from kenning.clock import FrozenClock
from kenning.config import DreamConfig, MemoryConfig, SearchConfig
from kenning.home import Home
from kenning.journal import Journal
from kenning.learning.dream import LEDGER, Dreamer
from kenning.memory.store import Target
from kenning.runtime.factory import build_tools
from kenning.search.engine import SearchEngine
from kenning.testing import frozen_clock
from kenning.testing.models import ScriptedModel, tool_call

from .conftest import git_log, learning_home

NOW = datetime(2026, 11, 30, 3, 0, 0)
PORT = "The staging database runs on port 5433 behind pgbouncer."
CACHE = "The CI cache key includes the lockfile hash."
DEPLOY = "Deploys go through the release branch only."


@pytest.fixture(autouse=True)
def frozen() -> Iterator[FrozenClock]:
    with frozen_clock(NOW) as stopped:
        yield stopped


def _home(tmp_path: Path, **dream: Any) -> Home:
    return learning_home(
        tmp_path / "home",
        dream=DreamConfig(**dream),
        search=SearchConfig(extra_paths=("DREAMS.md",)),  # so DREAMS.md is searchable
    )


def _journal(home: Home, days_ago: int, *lines: str, source: str = "cli") -> None:
    with frozen_clock(NOW - timedelta(days=days_ago, hours=1)):
        Journal(home.layout, home.history).append(
            "\n".join(f"- {line}" for line in lines), source=source
        )


def _recall(home: Home, *queries: str, hours_ago: float = 2) -> None:
    with frozen_clock(NOW - timedelta(hours=hours_ago)):
        engine = SearchEngine(home.archive, None, home.config.search, layout=home.layout)
        for query in queries:
            assert engine.search(query, kinds=("chunk",)).hits, query


def test_only_candidates_past_every_gate_are_promoted_with_their_sources(
    tmp_path: Path, frozen: FrozenClock
) -> None:
    home = _home(tmp_path)
    _journal(home, 1, PORT, CACHE, DEPLOY)
    _recall(home, "staging database port", "pgbouncer port", "staging database port")
    _recall(home, "CI cache key", "cache lockfile")  # only twice
    _recall(home, "release branch deploys", "release branch deploys", "release branch deploys")
    report = Dreamer(home).run()

    verdicts = {s.text: s.verdict for s in report.considered}
    assert verdicts[PORT] == "promoted"
    assert verdicts[CACHE] == "recalled 2× < 3"
    assert verdicts[DEPLOY] == "1 distinct queries < 2"
    assert home.memory.read(Target.MEMORY).entries == (PORT,)
    # traceable: the ledger, the commit and DREAMS.md name the sources and the queries
    row = json.loads((home.root / LEDGER).read_text().splitlines()[0])
    assert row["text"] == PORT and row["sources"] == [
        f"memory/{(NOW - timedelta(days=1)).date()}.md#L4"
    ]
    assert (
        row["queries"] == ["pgbouncer port", "staging database port"]
        and len(row["recall_ids"]) == 3
    )
    assert git_log(home)[0] == "dream: promote 1 entries into MEMORY.md"
    dreams = (home.root / "DREAMS.md").read_text()
    assert PORT in dreams and "recalled 2× < 3" in dreams and "memory/2026-11-29.md#L4" in dreams
    # a second night promotes nothing new: it was promoted before
    frozen.advance(days=1)
    again = Dreamer(home).run()
    assert again.promoted == [] and home.memory.read(Target.MEMORY).entries == (PORT,)


@pytest.mark.parametrize(
    ("setting", "days_ago", "verdict"),
    [({"min_score": 0.99}, 1, "score 0."), ({"max_age_days": 5}, 8, "too old: 8 days > 5")],
)
def test_score_and_age_gates(
    tmp_path: Path, setting: dict[str, Any], days_ago: int, verdict: str
) -> None:
    home = _home(tmp_path, **setting)
    _journal(home, days_ago, PORT)
    _recall(home, "staging database port", "pgbouncer port", "staging port")
    report = Dreamer(home).run()
    assert next(s.verdict for s in report.considered if s.text == PORT).startswith(verdict)
    assert not home.layout.memory_file.exists()


def test_a_concurrent_edit_of_memory_aborts_the_promotion(tmp_path: Path) -> None:
    home = _home(tmp_path)
    home.memory.add(Target.MEMORY, "Existing fact.")
    _journal(home, 1, PORT)
    _recall(home, "staging database port", "pgbouncer port", "staging port")
    edited = "Existing fact.\n§\nTyped by the user in an editor.\n"

    def user_edits() -> None:
        home.layout.memory_file.write_text(edited)

    report = Dreamer(home, before_write=user_edits).run()
    assert report.aborted and "MEMORY.md changed" in report.aborted and report.promoted == []
    assert home.layout.memory_file.read_text() == edited
    assert not (home.root / LEDGER).exists()
    assert "Aborted: MEMORY.md changed" in (home.root / "DREAMS.md").read_text()


def test_a_symlinked_memory_file_is_never_followed_or_replaced(tmp_path: Path) -> None:
    home = _home(tmp_path)
    _journal(home, 1, PORT)
    _recall(home, "staging database port", "pgbouncer port", "staging port")
    outside = tmp_path / "outside.md"
    outside.write_text("secret outside the home\n")
    home.layout.memory_file.parent.mkdir(parents=True, exist_ok=True)
    home.layout.memory_file.symlink_to(outside)
    report = Dreamer(home, clock=lambda: NOW).run()
    assert report.aborted and "symbolic link" in report.aborted and report.promoted == []
    assert home.layout.memory_file.is_symlink()
    assert outside.read_text() == "secret outside the home\n"
    assert "secret" not in (home.root / "DREAMS.md").read_text()


def test_dreams_md_and_automated_sessions_are_never_sources(tmp_path: Path) -> None:
    home = _home(tmp_path)
    planted = "The moon base door code rotates every week."
    home.root.mkdir(parents=True)
    (home.root / "DREAMS.md").write_text(f"# Dreams\n\n## old run\n- {planted}\n")
    _recall(home, "moon base door code", "door code rotates", "moon base")  # hits DREAMS.md
    # an interactive entry, recalled only by a cron session's searches
    _journal(home, 1, PORT)
    cron = AgentSession.start(
        home,
        ScriptedModel(
            [
                tool_call("memory_search", query="staging database port"),
                tool_call("memory_search", query="pgbouncer port"),
                tool_call("memory_search", query="staging port"),
                "done",
            ]
        ),
        build_tools(home),
        cwd=tmp_path,
        settings=AgentSettings(source="cron"),
    )
    asyncio.run(cron.run("nightly check"))
    # a flush entry written by a cron session's flush, and one by an interactive one
    _journal(home, 1, "Cron flush note about the nightly job runner.", source="flush")
    _journal(home, 1, "Interactive flush note about the billing service.", source="flush")
    for source, text in (
        ("cron", "- Cron flush note about the nightly job runner."),
        ("cli", "- Interactive flush note about the billing service."),
    ):
        sid = home.archive.start_session(source)  # type: ignore[arg-type]
        home.archive.append(
            sid,
            Message(
                "assistant",
                "",
                tool_calls=[
                    {"id": "c1", "name": "journal_append", "arguments": json.dumps({"text": text})}
                ],
                meta={"flush": True},
            ),
        )

    cron_hits = (
        home.archive.storage.connection()
        .execute(
            "SELECT count(*) FROM recalls r JOIN recall_hits h ON h.recall_id = r.id "
            "WHERE r.query IN ('staging database port', 'pgbouncer port', 'staging port')"
        )
        .fetchone()[0]
    )
    assert cron_hits >= 3  # the cron session's searches found it, and were recorded

    report = Dreamer(home).run(dry_run=True)
    texts = {s.text: s for s in report.considered}
    assert planted not in texts
    assert texts[PORT].candidate.recalls == {} and texts[PORT].verdict == "recalled 0× < 3"
    assert "Interactive flush note about the billing service." in texts
    assert "Cron flush note about the nightly job runner." not in texts
    assert home.layout.memory_file.exists() is False
    assert planted in (home.root / "DREAMS.md").read_text()  # dry run: nothing rewritten


def test_light_and_rem_phases_report_without_touching_memory(tmp_path: Path) -> None:
    home = _home(tmp_path)
    _journal(
        home, 3, "Grafana dashboards live in the ops repo.", "Grafana alerts page the on-call."
    )
    _journal(home, 1, "Grafana needs the VPN to load.", PORT)
    _journal(home, 0, PORT.replace("5433", "5433 ").strip())  # a near-duplicate, merged
    report = Dreamer(home).run(phases=("light", "rem"))
    assert [t.word for t in report.themes][:1] == ["grafana"]
    light = {s.text for s in report.light}
    assert PORT in light and "Grafana dashboards live in the ops repo." not in light  # 3 days ago
    assert len([s for s in report.light if "5433" in s.text]) == 1
    assert not home.layout.memory_file.exists()
    dreams = (home.root / "DREAMS.md").read_text()
    assert "### Light sleep" in dreams and "grafana: 3 candidates over 2 days" in dreams


def test_a_full_memory_skips_instead_of_truncating(tmp_path: Path) -> None:
    home = learning_home(tmp_path / "home", memory=MemoryConfig(memory_budget=80))
    home.memory.add(Target.MEMORY, "An existing entry that fills most of the budget already.")
    _journal(home, 1, PORT)
    _recall(home, "staging database port", "pgbouncer port", "staging port")
    report = Dreamer(home).run()
    verdict = next(s.verdict for s in report.considered if s.text == PORT)
    assert verdict.startswith("MEMORY.md is full") and verdict.endswith("skipped")
    assert home.memory.read(Target.MEMORY).entries == (
        "An existing entry that fills most of the budget already.",
    )


OLD_PORT = "The staging database is on port 5432 behind pgbouncer."
NEW_PORT = "The staging database moved to port 6543 behind pgbouncer."
PORT_QUERIES = ("staging database port", "pgbouncer port", "staging database pgbouncer")


def test_a_candidate_a_newer_statement_contradicts_is_never_promoted(tmp_path: Path) -> None:
    home = _home(tmp_path)
    _journal(home, 3, OLD_PORT)
    _journal(home, 1, NEW_PORT)
    _recall(home, *PORT_QUERIES)
    report = Dreamer(home).run()

    by_text = {s.text: s for s in report.considered}
    old, new = by_text[OLD_PORT], by_text[NEW_PORT]
    assert old.verdict.startswith("superseded by a newer statement: " + repr(NEW_PORT))
    assert new.verdict == "promoted" and new.superseded_by is None
    assert home.memory.read(Target.MEMORY).entries == (NEW_PORT,)
    rows = report.to_dict()["considered"]
    assert isinstance(rows, list)
    shown = {row["text"]: row.get("superseded_by") for row in rows}
    assert shown[OLD_PORT] == {
        "text": NEW_PORT,
        "source": f"memory/{(NOW - timedelta(days=1)).date()}.md#L4",
    }
    assert shown[NEW_PORT] is None
    dreams = (home.root / "DREAMS.md").read_text()
    assert "Superseded by a newer statement, so not promoted (1):" in dreams
    day = (NOW - timedelta(days=1)).date()
    assert f'"{OLD_PORT}"' in dreams and f'→ "{NEW_PORT}" (memory/{day}.md#L4, {day})' in dreams


def test_a_correction_said_in_chat_counts_even_unrecalled(tmp_path: Path) -> None:
    """The newer statement need not be a candidate: a person said it in a session."""
    home = _home(tmp_path)
    _journal(home, 3, OLD_PORT)
    _recall(home, *PORT_QUERIES)
    said = (NOW - timedelta(days=1)).timestamp()
    sid = home.archive.start_session("cli", started_at=said)
    home.archive.append(sid, Message("user", f"Heads up. {NEW_PORT}", created_at=said))
    # neither a question nor an automated session's message corrects anything
    asked = home.archive.start_session("cli", started_at=said + 60)
    home.archive.append(
        asked, Message("user", "Is the staging database on port 7000 behind pgbouncer?")
    )
    cron = home.archive.start_session("cron", started_at=said + 120)
    home.archive.append(
        cron, Message("assistant", "The staging database is on port 7777 behind pgbouncer.")
    )
    report = Dreamer(home).run()
    old = next(s for s in report.considered if s.text == OLD_PORT)
    assert old.superseded_by is not None and old.superseded_by.text == f"Heads up. {NEW_PORT}"
    assert old.superseded_by.source.ref == f"session {sid} #1"
    assert not home.layout.memory_file.exists()


def test_what_is_said_again_or_only_echoed_supersedes_nothing(tmp_path: Path) -> None:
    home = _home(tmp_path)
    _journal(home, 3, OLD_PORT)
    _journal(home, 2, "Staging database: port 5432 behind pgbouncer, yes.")  # an echo
    _journal(home, 1, "Deploys to staging go through the release branch only.")
    _recall(home, *PORT_QUERIES)
    report = Dreamer(home).run()
    assert all(s.superseded_by is None for s in report.considered)
    assert not any(s.verdict.startswith("superseded") for s in report.considered)
    assert home.memory.read(Target.MEMORY).entries  # one of the two said-again facts


def test_statements_written_together_are_a_list_not_a_correction(tmp_path: Path) -> None:
    """Ten minutes apart at least, as in search's supersession (journal heading times)."""
    home = _home(tmp_path)
    _journal(home, 2, OLD_PORT)
    _journal(home, 2, NEW_PORT)  # the same minute
    _recall(home, *PORT_QUERIES)
    report = Dreamer(home).run()
    assert all(s.superseded_by is None for s in report.considered)


def test_a_candidate_that_changes_a_memory_entry_is_named_not_added(tmp_path: Path) -> None:
    """MEMORY.md says 5432 (promoted last week, say); the journal now says 6543."""
    home = _home(tmp_path)
    home.memory.add(Target.MEMORY, OLD_PORT)
    _journal(home, 1, NEW_PORT)
    _recall(home, *PORT_QUERIES)
    report = Dreamer(home).run()
    new = next(s for s in report.considered if s.text == NEW_PORT)
    assert new.verdict.startswith(f"says another value than the MEMORY.md entry {OLD_PORT!r}")
    assert "kenning memory replace" in new.verdict
    assert home.memory.read(Target.MEMORY).entries == (OLD_PORT,)
    assert "says another value than the MEMORY.md entry" in (home.root / "DREAMS.md").read_text()
