"""``kenning bench locomo`` plumbing on a tiny synthetic LoCoMo file (FakeEmbedder)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from kenning.bench import locomo
from kenning.cli import cli
from kenning.testing import FakeEmbedder


def _turn(dia: str, speaker: str, text: str) -> dict[str, str]:
    return {"speaker": speaker, "dia_id": dia, "text": text}


def write_tiny_locomo(path: Path) -> Path:
    conv = {
        "speaker_a": "Ann",
        "speaker_b": "Bo",
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [
            _turn("D1:1", "Ann", "I adopted a puppy last week"),
            _turn("D1:2", "Bo", "What did you name him?"),
            _turn("D1:3", "Ann", "His name is Rex, he loves the beach"),
        ],
        "session_2_date_time": "10:00 am on 9 June, 2023",
        "session_2": [
            _turn("D2:1", "Bo", "I started learning the violin"),
            _turn("D2:2", "Ann", "Nice! Which teacher?"),
            _turn("D2:3", "Bo", "Mrs. Patel from the music school"),
        ],
    }
    qa = [
        {"question": "What is the name of Ann's puppy?", "answer": "Rex", "evidence": ["D1:3"],
         "category": 4},
        {"question": "Who teaches Bo the violin?", "answer": "Mrs. Patel",
         "evidence": ["D2:3; D2:1"], "category": 1},
        {"question": "What did Ann buy?", "adversarial_answer": "x", "evidence": [], "category": 5},
    ]  # fmt: skip
    path.write_text(json.dumps([{"sample_id": "conv-1", "conversation": conv, "qa": qa}]))
    return path


def test_run_reports_every_system_and_slice(tmp_path: Path) -> None:
    data = write_tiny_locomo(tmp_path / "tiny.json")
    embedder = locomo.cached(FakeEmbedder(), tmp_path / "cache.sqlite")
    ticks: list[int] = []
    totals: list[int] = []
    report = locomo.run(data, embedder, progress=ticks.append, on_total=totals.append)
    assert report["questions"] == 2 and report["turns"] == 6
    assert set(report["systems"]) == {"fts5_porter_or", "dense", "kenning"}
    for metrics in report["systems"].values():
        assert set(locomo.METRICS) <= set(metrics) and "p50_ms" in metrics
    assert set(report["by_category"]) == {"1", "4"}
    assert report["slices"]["conv1-5"]["kenning"]["n"] == 2
    assert sum(ticks) == totals[0] == 6 + 2  # turns embedded + questions with evidence
    assert report["systems"]["kenning"]["turn_recall@10"] == 1.0
    assert "kenning" in locomo.table(report)
    # A re-run embeds nothing new.
    again = locomo.cached(FakeEmbedder(), tmp_path / "cache.sqlite")
    assert locomo.run(data, again)["embedded_new_texts"] == 0


def test_abstention_asks_each_conversation_the_next_ones_questions(tmp_path: Path) -> None:
    one = json.loads(write_tiny_locomo(tmp_path / "tiny.json").read_text())[0]
    two = json.loads(json.dumps(one).replace("Ann", "Cy").replace("Rex", "Max"))
    two["sample_id"] = "conv-2"
    data = tmp_path / "two.json"
    data.write_text(json.dumps([one, two]))
    report = locomo.run(data, locomo.cached(FakeEmbedder(), tmp_path / "cache.sqlite"))
    abstention = report["abstention"]["all"]
    # 2 questions with evidence (category 5 is left out) per conversation, both ways
    assert abstention["foreign_n"] == 4 and abstention["own_n"] == 4
    assert 0.0 <= abstention["foreign_nothing"] <= 1.0
    assert "abstention (kenning)" in locomo.table(report)
    # a single conversation has no "next" one to borrow questions from
    single = locomo.run(tmp_path / "tiny.json", locomo.cached(FakeEmbedder(), tmp_path / "c2"))
    assert single["abstention"]["all"]["foreign_n"] == 0


def test_conversation_ranges() -> None:
    assert locomo.parse_conversations(None, 3) == [1, 2, 3]
    assert locomo.parse_conversations("1-2,5", 10) == [1, 2, 5]
    with pytest.raises(ValueError, match="no conversation 11"):
        locomo.parse_conversations("9-11", 10)
    with pytest.raises(ValueError, match="bad conversation range"):
        locomo.parse_conversations("one", 10)


def test_scoring() -> None:
    q = locomo.Question(1, "q", 4, frozenset({3, 7}), frozenset({"s2"}))
    session_of = {1: "s1", 2: "s1", 3: "s2", 7: "s2"}
    got = locomo.score([1, 3, 2, 7], q, session_of)
    assert got["turn_recall@5"] == 1.0 and got["mrr"] == 0.5
    assert got["session_hit@1"] == 0.0 and got["session_hit@5"] == 1.0
    assert locomo.score([], q, session_of)["mrr"] == 0.0


def test_cli_rejects_a_bad_range(tmp_path: Path) -> None:
    data = write_tiny_locomo(tmp_path / "tiny.json")
    result = CliRunner().invoke(
        cli, ["bench", "locomo", "--data", str(data), "--conversations", "3"]
    )
    assert result.exit_code != 0 and "no conversation 3" in result.output


def test_metrics_are_also_reported_without_the_adversarial_category(tmp_path: Path) -> None:
    data = write_tiny_locomo(tmp_path / "tiny.json")
    items = json.loads(data.read_text())
    items[0]["qa"].append(
        {"question": "Which beach does Rex love?", "adversarial_answer": "x",
         "evidence": ["D1:3"], "category": 5}
    )  # fmt: skip
    data.write_text(json.dumps(items))
    report = locomo.run(data, locomo.cached(FakeEmbedder(), tmp_path / "cache.sqlite"))
    assert report["questions"] == 3 and report["by_category"]["5"]["kenning"]["n"] == 1
    plain = report["without_adversarial"]
    assert set(plain) == {"all", "conv1-5"}
    assert plain["all"]["kenning"]["n"] == plain["conv1-5"]["dense"]["n"] == 2
    assert "without category 5 (adversarial), all (n=2)" in locomo.table(report)


def test_cli_end_to_end_on_a_tiny_file_with_the_real_embedder(tmp_path: Path) -> None:
    data = write_tiny_locomo(tmp_path / "tiny.json")
    args = ["bench", "locomo", "--data", str(data), "--cache", str(tmp_path / "cache.sqlite")]
    report = json.loads(CliRunner().invoke(cli, [*args, "--json"], catch_exceptions=False).stdout)
    assert report["questions"] == 2 and report["without_adversarial"]["all"]["kenning"]["n"] == 2
    human = CliRunner().invoke(cli, args, catch_exceptions=False).stdout
    assert "without category 5 (adversarial), all (n=2)" in human
