"""``kenning sessions compact ID`` and ``kenning bench compaction``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from tests.context.conftest import fill

from kenning.agent.loop import AgentSession
from kenning.cli import cli
from kenning.context.transcript import COMPACTION_KEY
from kenning.home import Home
from kenning.models import registry
from kenning.testing.summariser import DeterministicSummariser
from kenning.tools.registry import ToolRegistry


def run(*args: str, code: int = 0) -> Result:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert result.exit_code == code, result.output
    return result


def a_session(tmp_path: Path) -> str:
    home = Home.open()
    session = AgentSession.start(home, DeterministicSummariser(), ToolRegistry(), cwd=tmp_path)
    fill(session, [(f"ask {i}: look at build a1b2c3d4{i:04d}", f"answer {i}") for i in range(30)])
    return session.session_id


def test_sessions_compact_explains_that_it_needs_a_model(tmp_path: Path) -> None:
    sid = a_session(tmp_path)
    result = run("sessions", "compact", sid, code=1)
    assert "needs a model to write the summary" in result.output
    assert "--model" in result.output and "[model]" in result.output
    assert all(m.active for m in Home.open().archive.messages(sid))


def test_sessions_compact_summarises_with_the_named_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(
        registry.MODEL_FACTORIES, "det", lambda req: DeterministicSummariser(name=req.spec)
    )
    sid = a_session(tmp_path)
    report = json.loads(run("sessions", "compact", sid, "--model", "det:x", "--json").stdout)
    assert report["compacted"] and report["reason"] == "manual" and report["guard"] == "accepted"
    messages = Home.open().archive.messages(sid)
    summary = next(m for m in messages if m.meta and COMPACTION_KEY in m.meta)
    assert summary.active and "a1b2c3d40003" in summary.content
    assert sum(1 for m in messages if m.compacted) >= report["messages_compacted"]
    human = run("sessions", "compact", sid, "--model", "det:x")
    assert "Context compacted" in human.stdout or "Nothing compacted" in human.stdout


def test_sessions_compact_of_an_unknown_session_points_at_list() -> None:
    result = run("sessions", "compact", "nope", code=1)
    assert "kenning sessions list" in result.output


def test_bench_compaction_reports_retention_per_compaction() -> None:
    result = run("bench", "compaction", "--turns", "90", "--window", "6000", "--json")
    report = json.loads(result.stdout)
    assert report["compactions"], "a 6k window compacts within 90 turns"
    for key in ("identifiers_in_context", "rules_in_context", "reachable"):
        assert 0.0 <= report[key] <= 1.0
    assert report["reachable"] == 1.0 and report["identifiers_in_context"] >= 0.95
    row = report["compactions"][0]
    assert row["guard"] in ("accepted", "retried", "patched", "fallback")
    assert row["engine_ms"] >= 0 and row["identifiers_seen"] > 0
    table = run("bench", "compaction", "--turns", "40", "--window", "5000").stdout
    assert "After the last compaction" in table
