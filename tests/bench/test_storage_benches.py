"""The benchmarks' PostgreSQL side (``--storage``): scale and LoCoMo beside SQLite, and
``bench concurrency``'s real worker processes on both backends, at tiny sizes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import psycopg
import pytest
from click.testing import CliRunner
from tests.bench.test_locomo_bench import write_tiny_locomo

from kenning.bench import concurrency, locomo
from kenning.cli import cli
from kenning.storage import open_storage
from kenning.storage.records import Message


def _scratch_schemas(url: str) -> list[str]:
    with psycopg.connect(url) as conn:
        rows = conn.execute(
            "SELECT nspname FROM pg_namespace WHERE nspname LIKE 'kenning\\_%' ORDER BY 1"
        ).fetchall()
    return [str(r[0]) for r in rows]


def _json(args: list[str]) -> dict[str, Any]:
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    report: dict[str, Any] = json.loads(result.stdout)
    return report


def test_scale_runs_the_same_archive_on_postgres_beside_sqlite(pg_url: str) -> None:
    before = _scratch_schemas(pg_url)
    report = _json(
        ["bench", "scale", "-n", "300", "--queries", "4", "--no-embedding-speed",
         "--storage", pg_url, "--json"]
    )  # fmt: skip
    pg = report["postgres"]
    assert pg["messages"] == report["messages"] == 300 and "***" in pg["server"]
    for name in ("raw_fts5", "lexical", "hybrid"):
        assert 0 < pg[name]["p50_ms"] <= pg[name]["p95_ms"]
    assert pg["db_mb"] > 0 and pg["ingest_msgs_per_s"] > 0 and pg["vectors_per_s"] > 0
    assert _scratch_schemas(pg_url) == before  # its scratch schema is gone


def test_scale_reports_postgres_hnsw_beside_exact_above_the_threshold(pg_url: str) -> None:
    args = ["bench", "scale", "-n", "300", "--queries", "4", "--no-embedding-speed"]
    result = CliRunner().invoke(cli, [*args, "--approximate-above", "100", "--storage", pg_url])
    assert result.exit_code == 0, result.output
    assert "postgres hybrid is approximate too: its top 10 shares 100.00%" in result.output
    # 300 vectors, a pool of 200 and ef_search 400: HNSW finds the exact pool
    hnsw = [line for line in result.output.splitlines() if "dense alone, HNSW" in line]
    assert len(hnsw) == 1 and hnsw[0].endswith("recall of exact top 10 1.000, top 200 1.000")


def test_scale_text_puts_postgres_in_its_own_columns(pg_url: str) -> None:
    args = ["bench", "scale", "-n", "200", "--queries", "2", "--no-embedding-speed"]
    result = CliRunner().invoke(cli, [*args, "--storage", pg_url])
    assert result.exit_code == 0, result.output
    assert "pg p50" in result.output and result.output.count("messages 200") == 2
    assert pg_url not in result.output  # the password is never printed


@pytest.mark.parametrize("command", ["scale", "locomo", "concurrency"])
def test_a_storage_that_is_not_postgres_is_refused(command: str, tmp_path: Path) -> None:
    extra = ["--data", str(write_tiny_locomo(tmp_path / "t.json"))] if command == "locomo" else []
    result = CliRunner().invoke(cli, ["bench", command, *extra, "--storage", "mysql://x/y"])
    assert result.exit_code == 2 and "is not a PostgreSQL URL" in result.output


def test_concurrency_reads_back_every_message_on_both_backends(pg_url: str) -> None:
    before = _scratch_schemas(pg_url)
    report = _json(
        ["bench", "concurrency", "--storage", "sqlite", "--storage", pg_url,
         "--processes", "1,3", "--sessions", "2", "-n", "4", "--search-every", "2", "--json"]
    )  # fmt: skip
    assert set(report["backends"]) == {"sqlite", "postgres"}
    for rows in report["backends"].values():
        assert [r["processes"] for r in rows] == [1, 3]
        for r in rows:
            assert r["acknowledged"] == r["stored"] == r["processes"] * 2 * 4
            assert (r["lost"], r["duplicated"], r["unexpected"], r["not_indexed"]) == (0, 0, 0, 0)
            assert r["errors"] == 0 and 0 < r["search_p50_ms"] <= r["search_p95_ms"]
    assert _scratch_schemas(pg_url) == before


def test_the_read_back_check_counts_lost_and_duplicated_messages(tmp_path: Path) -> None:
    storage = open_storage(tmp_path / "state.db")
    storage.sessions.insert("s", "cli", started_at=1.0)
    one = storage.sessions.append("s", Message("user", "[a] hello"))
    two = storage.sessions.append("s", Message("user", "[a] hello"))  # the same text twice
    assert one.id is not None and two.id is not None
    acked = [(one.id, "s", 1, "[a] hello"), (two.id, "s", 2, "[a] hello")]
    acked.append((two.id + 1, "s", 3, "[b] never stored"))
    check = concurrency._verify(storage, acked)
    assert (check["lost"], check["duplicated"], check["unexpected"]) == (1, 1, 0)
    assert concurrency._verify(storage, acked[:1])["unexpected"] == 1
    storage.close()


def test_locomo_on_postgres_matches_sqlite(tmp_path: Path, pg_url: str) -> None:
    from kenning.testing import FakeEmbedder

    data = write_tiny_locomo(tmp_path / "tiny.json")
    embedder = locomo.cached(FakeEmbedder(), tmp_path / "cache.sqlite")
    before = _scratch_schemas(pg_url)
    lite = locomo.run(data, embedder)
    pg = locomo.run(data, embedder, storage_url=pg_url)
    assert pg["questions"] == lite["questions"] == 2
    assert locomo.quality_gaps(lite, pg) == dict.fromkeys(locomo.SYSTEMS, 0.0)
    assert _scratch_schemas(pg_url) == before
    text = locomo.table({**lite, "postgres": pg, "postgres_gap": locomo.quality_gaps(lite, pg)})
    assert "the same on PostgreSQL" in text and "kenning 0.0000" in text


def test_scale_keeps_its_archives_and_times_only_the_searches_again(
    pg_url: str, tmp_path: Path
) -> None:
    args = ["bench", "scale", "-n", "300", "--queries", "4", "--no-embedding-speed",
            "--storage", pg_url, "--keep", str(tmp_path / "kept"), "--json"]  # fmt: skip
    first = _json(args)
    schema = (tmp_path / "kept" / "postgres-schema").read_text(encoding="utf-8").strip()
    assert schema in _scratch_schemas(pg_url) and (tmp_path / "kept" / "state.db").exists()
    again = _json(args)
    for report in (again, again["postgres"]):
        assert report["reused"] is True and "ingest_msgs_per_s" not in report
        assert report["messages"] == 300 and report["hybrid"]["p50_ms"] > 0
    assert again["db_mb"] == first["db_mb"]  # nothing was added
    text = CliRunner().invoke(cli, args[:-1])
    assert text.exit_code == 0, text.output
    assert text.output.count("built by an earlier run (--keep): searches only") == 2
    other = CliRunner().invoke(cli, [*args[:3], "400", *args[4:]])
    assert other.exit_code != 0 and "holds 300 messages" in other.output
    assert "Traceback" not in other.output
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute(f'DROP SCHEMA "{schema}" CASCADE')
