"""``kenning bench loop`` and ``kenning bench review`` end to end on small inputs.

The README quotes both; these check that each runs through the CLI, measures
what it says (model time subtracted, the archive really filled, the review
really landing its writes in one commit) and reports it in both formats. No
assertion is on a duration's size: only that it was measured.
"""

from __future__ import annotations

import json
from typing import Any

from click.testing import CliRunner

from kenning.bench import loop, review
from kenning.cli import cli


def _invoke(*args: str) -> Any:
    result = CliRunner().invoke(cli, ["bench", *args])
    assert result.exit_code == 0, result.output
    return result


def test_bench_loop_times_the_same_turns_on_an_empty_and_a_filled_archive() -> None:
    report = json.loads(_invoke("loop", "-n", "300", "--turns", "4", "--json").stdout)
    assert report["messages"] == 300 and report["turns"] == 4
    for label in ("empty_archive", "archive"):
        row = report[label]
        assert 0 < row["p50_ms"] <= row["p95_ms"], row


def test_bench_loop_table_names_the_baseline_and_the_verdict() -> None:
    results = {
        "messages": 1000,
        "turns": 5,
        "empty_archive": {"p50_ms": 2.0, "p95_ms": 3.0},
        "archive": {"p50_ms": 3.0, "p95_ms": 4.0},
    }
    lines = loop.format_table(results, target_ms=2.5)
    assert "empty (baseline)" in lines[2] and "1.00×" in lines[2]
    assert "1,000 messages" in lines[3] and "1.50×" in lines[3]
    assert lines[-1] == "target p50 ≤ 2.5 ms at 1,000 messages: NOT met"
    assert loop.format_table(results, target_ms=10)[-1].endswith(": met")


def test_bench_loop_really_archives_every_turn(tmp_path: Any) -> None:
    # The benchmark's homes are temporary; run one turn set directly and count what landed.
    from kenning.config import Config, EmbeddingConfig, HistoryConfig
    from kenning.home import Home

    home = Home(
        tmp_path / "home",
        Config(embedding=EmbeddingConfig(provider="none"), history=HistoryConfig(False)),
    )
    work = tmp_path / "work"
    work.mkdir()
    (work / "README.md").write_text("# Demo\n")
    samples = loop._turns(home, work, 3, None)
    assert len(samples) == 3 and all(s > 0 for s in samples)
    sessions = home.archive.sessions()
    assert len(sessions) == 1
    # per turn: user, assistant tool call, tool result, final answer
    assert len(home.archive.messages(sessions[0].id)) == 3 * 4


def test_bench_review_reports_cost_and_what_the_review_wrote() -> None:
    report = json.loads(
        _invoke("review", "--turns", "4", "--skills", "1,20", "--repeats", "1", "--json").stdout
    )
    assert report["repeats"] == 1 and [r["skills"] for r in report["rows"]] == [1, 20]
    for row in report["rows"]:
        assert row["error"] is None and row["status"] == "saved", row
        assert row["messages_reviewed"] > 4 and row["model_requests"] >= 2
        assert row["total_ms"] >= row["overhead_ms"] > 0 and row["model_ms"] >= 0
        assert row["commit"], "the review's writes land as one commit"
        assert any(change.startswith("USER.md: added") for change in row["memory_changes"])
        assert "skill 'ci-gate-before-tag' created" in row["wrote"]


def test_bench_review_text_table() -> None:
    text = _invoke("review", "--turns", "3", "--skills", "2", "--repeats", "1").stdout
    lines = text.splitlines()
    assert lines[0].split()[:3] == ["skills", "msgs", "total"]
    assert lines[1].split()[0] == "2"
    assert any(line.startswith("one commit: ") for line in lines)
    assert (
        review.table(
            json.loads(
                _invoke(
                    "review", "--turns", "3", "--skills", "2", "--repeats", "1", "--json"
                ).stdout
            )
        )[0]
        == lines[0]
    )


def test_bench_review_refuses_bad_sizes() -> None:
    result = CliRunner().invoke(cli, ["bench", "review", "--skills", "a,b"])
    assert result.exit_code == 2 and "1,300" in result.output
