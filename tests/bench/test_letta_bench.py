"""``kenning bench letta``: loading, scoring, a run that can fail, and the CLI on a real slice."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from tests.conftest import embedding_cache

from kenning.bench import letta, locomo
from kenning.bench.corpus import Corpus
from kenning.cli import cli
from kenning.testing import FakeEmbedder

REPO = Path(__file__).resolve().parents[2]
# CI lays the shared data beside the repository; a worktree has it one level up.
DATA = next(
    (
        p / "shared" / "data" / "letta"
        for p in (REPO.parent, REPO.parent.parent)
        if (p / "shared" / "data" / "letta").is_dir()
    ),
    REPO.parent / "shared" / "data" / "letta",
)
CACHE = embedding_cache()

WORLDS = [
    [
        "Mira Holt is a glassblower in Murano.",
        "Tomas Reyes teaches chemistry at a high school in Porto.",
        "Mira Holt and Tomas Reyes met at a ceramics fair in Lisbon.",
        "Tomas Reyes owns a sailboat named Petrel.",
        "Mira Holt speaks fluent Icelandic.",
    ],
    [
        "Ines Paulo runs a bakery famous for rye bread.",
        "Oskar Lind repairs vintage motorcycles in Malmo.",
        "Ines Paulo and Oskar Lind co-wrote a cookbook about Nordic baking.",
        "Oskar Lind plays the cello in a community orchestra.",
        "Ines Paulo adopted a greyhound named Comet.",
    ],
]
QUESTIONS: list[tuple[int, str, list[int], str]] = [
    (0, "At which ceramics fair did Mira Holt and Tomas Reyes meet?", [2],
     "Mira Holt and Tomas Reyes met at a jazz festival in Montreal."),
    (0, "What is the name of Tomas Reyes's sailboat?", [3],
     '"Tomas Reyes owns a sailboat named Albatross."'),
    (0, "Which language does Mira Holt speak fluently?", [4],
     "Mira Holt speaks fluent Portuguese, not Icelandic."),
    (1, "What did Ines Paulo and Oskar Lind co-write?", [2],
     "Ines Paulo and Oskar Lind co-wrote a travel guide about Lapland."),
    (1, "Which instrument does Oskar Lind play?", [3],
     "Oskar Lind plays the trumpet in a community orchestra."),
    (1, "What is the name of Ines Paulo's greyhound?", [4],
     "Ines Paulo adopted a greyhound named Bolt."),
]  # fmt: skip


def write_letta(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    read, update = [], []
    for world, question, support, correction in QUESTIONS:
        facts = WORLDS[world]
        read.append(
            {
                "input": question,
                "ground_truth": "x",
                "agent_args": {"tags": [], "extra": {"facts": facts, "question_index": 0}},
            }
        )
        update.append({"input": question, "ground_truth": "y", "agent_args": {"extra": {
            "facts": facts, "contradicting_fact": correction, "contradicting_answer": "y",
            "supporting_fact_indices": support}}})  # fmt: skip
    for name, rows in ((letta.READ_FILE, read), (letta.UPDATE_FILE, update)):
        (folder / name).write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return folder


def run_fake(tmp_path: Path, **kwargs: Any) -> dict[str, Any]:
    embedder = locomo.cached(FakeEmbedder(), tmp_path / "cache.sqlite")
    return letta.run(write_letta(tmp_path / "letta"), embedder, **kwargs)


def test_load_joins_read_questions_to_their_supporting_facts(tmp_path: Path) -> None:
    worlds, unmatched = letta.load(write_letta(tmp_path / "letta"))
    assert unmatched == 0 and [w.number for w in worlds] == [1, 2]
    assert [q.gold for q in worlds[0].read] == [{2}, {3}, {4}]
    # The stray quotes around a correction are dropped.
    assert worlds[0].update[1].correction == "Tomas Reyes owns a sailboat named Albatross."
    assert {w.split for w in worlds} <= {"dev", "held_out"}
    assert letta.split_of(tuple(WORLDS[0])) == worlds[0].split  # stable


def test_bad_data_names_the_file_and_line(tmp_path: Path) -> None:
    with pytest.raises(letta.LettaDataError, match=r"core_memory_update\.jsonl not found"):
        letta.load(tmp_path)
    folder = write_letta(tmp_path / "letta")
    with (folder / letta.UPDATE_FILE).open("a") as out:
        out.write('{"input": "q", "agent_args": {"extra": {"facts": "not a list"}}}\n')
    with pytest.raises(letta.LettaDataError, match=r"core_memory_update.jsonl:7: 'agent_args"):
        letta.load(folder)


def test_scoring() -> None:
    assert letta.score_read([5, 3, 9], {3}) == {"hit@1": 0.0, "hit@3": 1.0, "mrr": 0.5}
    assert letta.score_read([], {3})["mrr"] == 0.0
    wins = letta.score_update([7, 2], newer=7, stale={2})
    assert wins == {"newer_wins": 1.0, "newer_first": 1.0, "stale_in_top10": 1.0}
    assert letta.score_update([2, 7], newer=7, stale={2})["newer_wins"] == 0.0
    # A newer fact that is not returned loses; a stale one not returned loses nothing.
    assert letta.score_update([2], newer=7, stale={2})["newer_wins"] == 0.0
    assert letta.score_update([1, 7], newer=7, stale={2})["newer_wins"] == 1.0


def test_run_reports_every_system_layout_and_split(tmp_path: Path) -> None:
    ticks: dict[str, int] = {}
    totals: list[tuple[int, int]] = []

    def progress(stage: str, n: int) -> None:
        ticks[stage] = ticks.get(stage, 0) + n

    report = run_fake(tmp_path, progress=progress, on_totals=lambda *t: totals.append(t))
    assert report["worlds"]["all"] == 2
    assert report["worlds"]["dev"] + report["worlds"]["held_out"] == 2
    assert totals == [(2, 6 + 6 * 4 + 6)] and ticks == {"questions": 36, "worlds": 2}
    read = report["read"]["systems"]
    assert set(read) == {"fts5_porter_or", "dense", "kenning"}
    assert read["kenning"]["all"]["n"] == 6 and read["kenning"]["all"]["hit@1"] == 1.0
    layouts = report["update"]["layouts"]
    assert list(layouts) == [lay.name for lay in letta.LAYOUTS]
    for layout in layouts.values():
        cell = layout["systems"]["kenning"]["all"]
        assert cell["n"] == 6 and set(letta.UPDATE_METRICS) <= set(cell)
    others = report["others_corrected"]
    assert others["questions"] == 6 and others["systems"]["kenning"]["all"]["n"] == 6
    text = letta.table(report)
    assert "own session, a year later" in text and "(6/6)" in text
    assert "others corrected" in text
    # Worlds are cached: a warm re-run embeds nothing.
    again = letta.run(tmp_path / "letta", locomo.cached(FakeEmbedder(), tmp_path / "cache.sqlite"))
    assert again["embedded_new_texts"] == 0 and again["read"] == report["read"] | {
        "latency_ms": again["read"]["latency_ms"]
    }


def test_a_broken_ranking_scores_low(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The metrics can fail: oldest-first ranking loses every read and update question."""
    honest = run_fake(tmp_path / "honest")
    original = Corpus.kenning

    def oldest_first(self: Corpus, text: str) -> list[int]:
        return sorted(original(self, text))  # ids grow with time: the stalest first

    monkeypatch.setattr(Corpus, "kenning", oldest_first)
    broken = run_fake(tmp_path / "broken")
    assert honest["read"]["systems"]["kenning"]["all"]["hit@1"] == 1.0
    assert broken["read"]["systems"]["kenning"]["all"]["hit@1"] <= 0.34
    for name, layout in broken["update"]["layouts"].items():
        assert layout["systems"]["kenning"]["all"]["newer_wins"] == 0.0, name
    # no supporting fact here is the world's first: oldest-first never finds one
    assert broken["others_corrected"]["systems"]["kenning"]["all"]["hit@1"] == 0.0
    assert honest["others_corrected"]["systems"]["kenning"]["all"]["hit@1"] > 0.5
    wins = [
        lay["systems"]["kenning"]["all"]["newer_wins"]
        for lay in honest["update"]["layouts"].values()
    ]
    assert sum(wins) > 1.0  # recency makes the newer fact win in the later layouts
    # The baselines are untouched by the broken engine.
    assert (
        broken["read"]["systems"]["fts5_porter_or"] == honest["read"]["systems"]["fts5_porter_or"]
    )


def test_cli_rejects_a_folder_without_the_data(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["bench", "letta", "--data", str(tmp_path)])
    assert result.exit_code == 2 and "core_memory_update.jsonl not found" in result.output


@pytest.mark.skipif(not DATA.is_dir(), reason=f"Letta data not found at {DATA}")
def test_cli_on_three_real_worlds_with_the_real_embedder() -> None:
    args = ["bench", "letta", "--data", str(DATA), "--worlds", "3", "--cache", str(CACHE)]
    result = CliRunner().invoke(cli, [*args, "--json"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["worlds"]["all"] == 3 and report["read"]["questions"] == 18
    kenning = report["read"]["systems"]["kenning"]["all"]
    assert kenning["n"] == 18 and kenning["hit@1"] >= 0.8
    human = CliRunner().invoke(cli, [*args, "--losses", "dev"], catch_exceptions=False)
    assert "held-out" in human.stdout and "all in one session, 30 days later" in human.stdout
    assert "kenning's losses on dev" in human.stdout


def test_the_hard_negative_keeps_only_corrections_of_other_facts() -> None:
    world = letta.World(1, tuple(WORLDS[0]), "dev")
    world.update = [
        letta.UpdateQuestion("a", frozenset({0}), "corrects fact 0"),
        letta.UpdateQuestion("b", frozenset({0, 1}), "corrects facts 0 and 1"),
        letta.UpdateQuestion("c", frozenset({2}), "corrects fact 2"),
    ]
    assert [q.text for q in letta.others_of(world, 0)] == ["c"]
    assert [q.text for q in letta.others_of(world, 2)] == ["a", "b"]


def test_losses_list_each_lost_question_with_its_ranks_and_what_superseded(
    tmp_path: Path,
) -> None:
    report = run_fake(tmp_path, losses="all")
    assert "losses" not in run_fake(tmp_path / "plain")
    lost = report["losses"]
    assert lost["split"] == "all"
    missed = sum(
        cell["all"]["n"] - cell["all"]["newer_wins_count"]
        for cell in (lay["systems"]["kenning"] for lay in report["update"]["layouts"].values())
    )
    assert missed > 0 and len(lost["update"]) == missed  # one entry per layout and question
    others = report["others_corrected"]["systems"]["kenning"]["all"]
    assert len(lost["others_corrected"]) == others["n"] - others["hit@1_count"]
    corrections = {q: (WORLDS[w], s, c.strip('"')) for w, q, s, c in QUESTIONS}
    for loss in lost["update"]:
        facts, support, correction = corrections[loss["question"]]
        assert loss["layout"] in {lay.label for lay in letta.LAYOUTS}
        assert loss["newer"]["text"] == correction
        assert [f["text"] for f in loss["stale"]] == [facts[i] for i in support]
        # it lost: the newer fact is missing or ranked below a stale one
        stale = [f["rank"] for f in loss["stale"] if f["rank"] is not None]
        assert loss["newer"]["rank"] is None or min(stale) < loss["newer"]["rank"]
        for fact in loss["stale"]:
            assert fact["by_the_newer"] == (fact["superseded_by"] == correction)
    text = letta.table(report)
    assert "kenning's losses on all" in text and "[not superseded]" in text
    assert f"newer #{lost['update'][0]['newer']['rank'] or '-'}" in text
    # one split only: the held-out losses stay unread while tuning on dev
    dev = run_fake(tmp_path / "dev", losses="dev")["losses"]
    listed = dev["update"] + dev["others_corrected"]
    assert listed and all(loss["split"] == "dev" for loss in listed)
    assert len(listed) < len(lost["update"] + lost["others_corrected"])
