"""``kenning bench when``: the data meets its spec, the metric can fail, the CLI runs."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from tests.conftest import embedding_cache

from kenning.archive.importers import import_jsonl
from kenning.archive.store import Archive
from kenning.bench import locomo
from kenning.bench import when as when_bench
from kenning.cli import cli
from kenning.search.engine import SearchEngine
from kenning.storage.query import SearchResult
from kenning.testing import FakeEmbedder

CACHE = embedding_cache()


def test_the_data_meets_its_spec(tmp_path: Path) -> None:
    report = import_jsonl(Archive(tmp_path / "state.db"), when_bench.DATA / "archive.jsonl")
    assert report.problems == [] and report.messages_imported == 152
    rows = [
        json.loads(line)
        for line in (when_bench.DATA / "archive.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    ids = [r["meta"]["id"] for r in rows]
    assert len(ids) == len(set(ids))
    queries = when_bench.load_queries(when_bench.DATA / "queries.jsonl")
    assert len({q.id for q in queries}) == len({q.text for q in queries}) == len(queries) == 72
    for lang in when_bench.LANGS:
        for kind in when_bench.KINDS:
            splits = Counter(q.split for q in queries if q.lang == lang and q.kind == kind)
            assert splits["dev"] == splits["held_out"] >= 3, (lang, kind)
    stamp = {r["meta"]["id"]: r["timestamp"][:4] for r in rows}
    for q in queries:
        assert set(q.evidence) <= set(ids), q
        # the answer is one of the fact's three states, each said in its own year
        assert {stamp[e] for e in q.evidence} <= {"2023", "2024", "2025"}


def test_a_bad_query_line_names_the_file_and_line(tmp_path: Path) -> None:
    row = {"id": "x", "lang": "en", "kind": "soon", "split": "dev", "query": "q", "evidence": ["a"]}
    (tmp_path / "queries.jsonl").write_text(json.dumps(row) + "\n", encoding="utf-8")
    with pytest.raises(when_bench.WhenDataError, match=r"queries\.jsonl:1"):
        when_bench.load_queries(tmp_path / "queries.jsonl")


def run_fake(tmp_path: Path) -> dict[str, Any]:
    return when_bench.run(locomo.cached(FakeEmbedder(), tmp_path / "cache.sqlite"))


def test_run_reports_every_language_kind_and_split(tmp_path: Path) -> None:
    report = run_fake(tmp_path)
    assert report["messages"] == 152 and report["queries"] == len(report["per_query"]) == 72
    for lang in when_bench.LANGS:
        cells = report["results"][lang]
        assert cells["all"]["all"]["n"] == 36
        assert cells["dev"]["all"]["n"] + cells["held_out"]["all"]["n"] == 36
        assert set(cells["all"]) == {"all", *when_bench.KINDS}
    text = when_bench.table(report)
    assert "held_out" in text and "before" in text and "without" in text


def test_the_metric_can_fail(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def silent(self: SearchEngine, query: str, **kwargs: Any) -> SearchResult:
        return SearchResult(query, [], "hybrid")

    monkeypatch.setattr(SearchEngine, "search", silent)
    mute = run_fake(tmp_path)
    for lang in when_bench.LANGS:
        assert mute["results"][lang]["all"]["all"]["with_time_hit@1"] == 0.0


def test_cli_with_the_real_embedder() -> None:
    """152 messages and 72 queries: seconds, even cold."""
    args = ["bench", "when", "--cache", str(CACHE)]
    result = CliRunner().invoke(cli, [*args, "--json"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    # Measured, not a target: the time intent helps in both languages, held out too.
    for lang in when_bench.LANGS:
        cell = report["results"][lang]["held_out"]["all"]
        assert cell["with_time_hit@1"] > cell["without_time_hit@1"] + 0.2, (lang, cell)
    # "before <event>": the event's own message shares the query's words and,
    # on the wrong side of it, must not outrank the state before it.
    rank = {q["id"]: q["with_time"] for q in report["per_query"]}
    assert rank["en-q06"] == 0  # Where did I work before I joined Fabrikam?
    human = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert "without vs with the time intent" in human.stdout
