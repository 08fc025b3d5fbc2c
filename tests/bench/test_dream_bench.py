"""``kenning bench dream`` end to end on small archives: times beside the exhaustive check."""

from __future__ import annotations

import json

from click.testing import CliRunner

from kenning.cli import cli


def test_dream_bench_times_the_dry_run_beside_the_exhaustive_check() -> None:
    result = CliRunner().invoke(cli, ["bench", "dream", "--sizes", "300,600", "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)  # progress goes to stderr
    rows = report["sizes"]
    assert [row["messages"] for row in rows] == [300, 600]
    for row in rows:
        assert row["dry_run_s"] > 0 and row["exhaustive_s"] > 0 and row["candidates"] > 0
        assert row["same_decisions"] is True


def test_dream_bench_text_and_bad_sizes() -> None:
    result = CliRunner().invoke(cli, ["bench", "dream", "--sizes", "300"])
    assert result.exit_code == 0, result.output
    assert "same decisions" in result.output and "  yes" in result.output
    bad = CliRunner().invoke(cli, ["bench", "dream", "--sizes", "ten"])
    assert bad.exit_code == 2 and "give sizes as numbers" in bad.output
    assert "Traceback" not in bad.output
