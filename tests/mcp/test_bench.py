"""`kenning bench mcp` runs end to end (tiny sizes: the numbers come from the command)."""

from __future__ import annotations

from click.testing import CliRunner

from kenning.bench import mcp as mcp_bench
from kenning.cli import cli


def test_bench_mcp_measures_start_and_both_searches() -> None:
    report = mcp_bench.run(200, queries=2, launches=1, embedders=("none",))
    measured = report["none"]
    assert measured["start_s"]["p50"] > 0
    for tool in ("memory_search", "session_search"):
        assert measured[f"{tool}_mode"] == "keyword"
        assert measured[tool]["p50_ms"] > 0 and measured["in_process"][tool]["p50_ms"] > 0
    lines = mcp_bench.table(report)
    assert "memory_search" in lines[2] and "session_search" in lines[3]


def test_bench_mcp_checks_its_arguments() -> None:
    result = CliRunner().invoke(cli, ["bench", "mcp", "--messages", "10"])
    assert result.exit_code == 2 and "--messages >= 100" in result.output
