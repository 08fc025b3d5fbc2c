"""`kenning search` and `kenning index` from the command line."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner, Result

from kenning.cli import cli
from kenning.clock import FrozenClock

FIXTURES = Path(__file__).resolve().parents[1] / "archive" / "fixtures"


def run(*args: str, code: int = 0) -> Result:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert result.exit_code == code, result.output
    return result


def test_keyword_search_over_messages_and_memory() -> None:
    keyword = ("--set", "embedding.provider=none")
    run(*keyword, "memory", "add", "The staging database is Postgres 16 on port 5433")
    run(*keyword, "journal", "add", "部署新版本之前先跑集成测试")
    run(*keyword, "sessions", "import", "openai", str(FIXTURES / "openai_chat.jsonl"))
    data = json.loads(run(*keyword, "search", "staging database port", "--json").stdout)
    assert data["mode"] == "keyword"
    assert data["hits"][0]["kind"] == "chunk" and data["hits"][0]["path"] == "memories/MEMORY.md"
    zh = json.loads(run(*keyword, "search", "部署", "--kind", "memory", "--json").stdout)
    assert zh["hits"] and zh["hits"][0]["path"].startswith("memory/")
    weather = json.loads(run(*keyword, "search", "weather", "--kind", "messages", "--json").stdout)
    assert weather["hits"] and all(h["kind"] == "message" for h in weather["hits"])
    nothing = run(*keyword, "search", "qorvax blint zuphem")
    assert "No matches." in nothing.stdout


def test_search_json_shows_the_time_intent(tmp_path: Path, frozen: FrozenClock) -> None:
    """ "now" ranks the newest statement first and says so under "time"; a query
    without time words has no "time" field."""
    rows = [
        ("old", "2025-02-01T09:00:00Z", "I live in Leeds, a nice city."),
        ("new", "2026-11-01T09:00:00Z", "The move is done, I live in the city of Lisbon now."),
    ]
    # other talk, so that "city" and "live" are not this archive's stopwords
    rows += [("misc", f"2026-10-{d:02d}T09:00:00Z", f"note {d} about tea") for d in range(1, 9)]
    history = tmp_path / "history.jsonl"
    history.write_text(
        "".join(
            json.dumps({"session_id": s, "role": "user", "content": c, "timestamp": t}) + "\n"
            for s, t, c in rows
        ),
        encoding="utf-8",
    )
    keyword = ("--set", "embedding.provider=none")
    run(*keyword, "sessions", "import", "jsonl", str(history))
    now = json.loads(run(*keyword, "search", "which city do I live in currently", "--json").stdout)
    assert now["hits"][0]["session_id"] == "new"
    assert now["time"] == {"intent": "recent", "phrase": "currently", "applied": True}
    human = run(*keyword, "search", "which city do I live in currently")
    assert "(keyword search; time: newest first ('currently'))" in human.stderr
    dated = run(*keyword, "search", "which city did I live in, in February 2025").stderr
    assert "time: 2025-02-01 to 2025-03-01 preferred ('February 2025')" in dated
    plain = json.loads(run(*keyword, "search", "which city do I live in", "--json").stdout)
    assert plain["hits"][0]["session_id"] == "old" and "time" not in plain


def test_index_status_and_update_with_the_real_embedder() -> None:
    run("sessions", "import", "openai", str(FIXTURES / "openai_chat.jsonl"))
    before = json.loads(run("index", "status", "--json").stdout)
    assert before["missing_vectors"] > 0 and "multilingual-e5-small" in before["embedder"]
    assert "messages embedded" in run("index", "update").stdout
    after = json.loads(run("index", "status", "--json").stdout)
    assert after["missing_vectors"] == 0 and after["missing_fts"] == 0
    hybrid = json.loads(run("search", "weather in Oslo", "--json").stdout)
    assert hybrid["mode"] == "hybrid" and hybrid["hits"]


def test_json_hits_carry_the_session_id_and_an_iso_timestamp(tmp_path: Path) -> None:
    keyword = ("--set", "embedding.provider=none")
    row = {"session_id": "trip-2024", "role": "user", "content": "The ferry to Hydra leaves at 9",
           "timestamp": "2024-05-01T09:30:00+02:00"}  # fmt: skip
    path = tmp_path / "history.jsonl"
    path.write_text(json.dumps(row) + "\n", encoding="utf-8")
    run(*keyword, "sessions", "import", "jsonl", str(path))
    hit = json.loads(run(*keyword, "search", "ferry Hydra", "--json").stdout)["hits"][0]
    assert hit["session_id"] == "trip-2024"
    assert hit["timestamp"] == "2024-05-01T07:30:00+00:00"
