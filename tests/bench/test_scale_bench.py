"""``kenning bench scale`` end to end on a small archive, exact and approximate."""

from __future__ import annotations

import json

from click.testing import CliRunner

from kenning.cli import cli


def _run(*args: str) -> dict[str, object]:
    result = CliRunner().invoke(
        cli, ["bench", "scale", "-n", "600", "--queries", "8", "--no-embedding-speed", *args]
    )
    assert result.exit_code == 0, result.output
    report: dict[str, object] = json.loads(result.stdout)  # progress goes to stderr
    return report


def test_scale_reports_every_system_side_by_side() -> None:
    report = _run("--json")
    assert report["messages"] == 600 and report["approximate_above"] == 250_000
    for name in ("raw_fts5", "lexical", "hybrid"):
        latency = report[name]
        assert isinstance(latency, dict) and 0 < latency["p50_ms"] <= latency["p95_ms"]
    assert "hybrid_exact" not in report  # below the threshold hybrid is exact already
    dense = report["dense"]
    assert isinstance(dense, dict)
    # 600 vectors and at least 4,000 candidates: the prefilter sees every row.
    assert dense["recall_at_10"] == dense["recall_at_200"] == 1.0
    assert isinstance(report["ingest_msgs_per_s"], int) and report["ingest_msgs_per_s"] > 0


def test_scale_compares_approximate_hybrid_with_exact() -> None:
    report = _run("--approximate-above", "100", "--json")
    assert report["approximate_above"] == 100
    exact = report["hybrid_exact"]
    assert isinstance(exact, dict) and exact["p50_ms"] > 0
    shared = report["hybrid_top10_shared_with_exact"]
    assert isinstance(shared, float) and shared == 1.0  # every row is a candidate here


def test_scale_text_output_names_the_mode() -> None:
    result = CliRunner().invoke(
        cli, ["bench", "scale", "-n", "300", "--queries", "3", "--no-embedding-speed"]
    )
    assert result.exit_code == 0, result.output
    assert "hybrid is exact (approximate above 250,000 vectors)" in result.output
    assert "recall of exact top 10 1.000" in result.output
