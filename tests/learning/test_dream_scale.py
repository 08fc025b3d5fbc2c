"""Dreaming's indexed supersession check answers as the exhaustive one, and reads little.

``dream_supersede.exhaustive`` is the definition (every statement of the
window against every candidate); ``Superseders`` is what dreaming runs. On
archives small enough for both, they must give the same candidates, the same
verdicts and the same superseding statements.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from kenning.archive.store import Message
from kenning.bench import scale
from kenning.clock import FrozenClock
from kenning.config import DreamConfig
from kenning.home import Home
from kenning.journal import Journal
from kenning.learning import dream_sources as src
from kenning.learning import dream_supersede as supersede
from kenning.learning.dream import DUPLICATE, Dreamer, merge_near_duplicates
from kenning.search.engine import SearchEngine
from kenning.testing import frozen_clock

from .conftest import learning_home

NOW = datetime(2026, 11, 30, 18, 0, 0)
OLD = "The staging database runs on port 5432 behind pgbouncer."
NEW = "The staging database runs on port 6543 behind pgbouncer now."


@pytest.fixture(autouse=True)
def frozen() -> Iterator[FrozenClock]:
    with frozen_clock(NOW) as stopped:
        yield stopped


def _statement(text: str, at: float) -> src.Statement:
    day = datetime.fromtimestamp(at).date()
    return src.Statement(text, src.SourceRef("message", f"m{at}", day, at))


def _candidate(text: str, at: float) -> src.Candidate:
    day = datetime.fromtimestamp(at).date()
    return src.Candidate(text, [src.SourceRef("journal", f"j{at}", day, at)])


def test_the_index_finds_what_every_statement_weighed_finds() -> None:
    """Templated synthetic text (many near-restatements), few distinct moments (ties)."""
    rng = random.Random(3)
    base = (NOW - timedelta(days=5)).timestamp()
    moments = [base + 900 * k for k in range(40)]
    said = [_statement(scale._text(rng), rng.choice(moments)) for _ in range(3000)]
    said += [_statement(OLD.replace("5432", str(n)), rng.choice(moments)) for n in range(30)]
    said.append(_statement("Is the staging database on port 1 behind pgbouncer?", moments[-1]))
    asked = [_candidate(s.text, s.source.at) for s in rng.sample(said, 300)]
    asked += [_candidate(OLD, moments[0]), _candidate("too few words", moments[0])]
    indexed, every = supersede.Superseders(said, asked), supersede.exhaustive(said)
    answers = [(indexed(c), every(c)) for c in asked]
    assert all(mine is theirs for mine, theirs in answers)
    assert sum(mine is not None for mine, _ in answers) > 50  # the case is not vacuous
    found = indexed(_candidate(OLD, moments[0]))
    assert found is not None and "port" in found.text and not found.text.endswith("?")


def test_the_index_weighs_only_statements_that_share_rare_words() -> None:
    rng = random.Random(5)
    at = (NOW - timedelta(days=2)).timestamp()
    said = [_statement(scale._text(rng), at + 3600) for _ in range(20_000)]
    said.append(_statement(NEW, at + 7200))
    lookup = supersede.Superseders(said, [_candidate(OLD, at)])
    found = lookup(_candidate(OLD, at))
    assert found is not None and found.text == NEW
    assert lookup.weighed < len(said) / 100  # the exhaustive check weighs all 20,001


def test_a_correction_sharing_only_the_least_rare_words_is_found() -> None:
    """Of "zebra quartz lantern meadow", a statement must share 3 words: it has
    one of the two rarest (zebra: nowhere, quartz: 6 times), so the index reads
    those two words' postings — and only those."""
    at = (NOW - timedelta(days=2)).timestamp()
    said = [_statement(f"lantern meadow filler{k}", at + 3600) for k in range(50)]
    said += [_statement(f"quartz pebble{k}", at + 3600) for k in range(5)]
    said.append(_statement("quartz lantern meadow violet", at + 7200))
    candidate = _candidate("zebra quartz lantern meadow", at)
    lookup = supersede.Superseders(said, [candidate])
    found = lookup(candidate)
    assert found is not None and found.text == "quartz lantern meadow violet"
    assert lookup.weighed == 6
    assert supersede.exhaustive(said)(candidate) is found


def _merged_pairwise(found: list[src.Candidate]) -> list[src.Candidate]:
    """Near-duplicates merged by weighing every pair: the definition."""
    kept: list[src.Candidate] = []
    for candidate in sorted(found, key=lambda c: (-len(c.text), c.text)):
        for other in kept:
            if src.jaccard(candidate.tokens, other.tokens) >= DUPLICATE:
                other.merge(candidate)
                break
        else:
            kept.append(candidate)
    return kept


def test_near_duplicates_merge_as_when_every_pair_is_weighed() -> None:
    """Variants one word apart: at 20 words Jaccard ≥ .9 (19/21), at 8 not (7/9)."""
    rng = random.Random(8)
    at = (NOW - timedelta(days=1)).timestamp()
    texts = []
    for _ in range(150):
        words = list(dict.fromkeys(scale._words(rng, rng.choice((3, 8, 20, 30)))))
        texts.append(" ".join(words))
        for _ in range(rng.randint(0, 4)):
            variant = list(words)
            k = rng.randrange(len(variant))
            change = rng.choice(("drop", "swap", "add"))
            if change == "drop" and len(variant) > 1:
                del variant[k]
            elif change == "swap":
                variant[k] = f"zz{rng.randrange(1000)}"
            else:
                variant.insert(k, f"yy{rng.randrange(1000)}")
            texts.append(" ".join(variant))
    texts += ["the and of", "the and of"]  # stopwords only: no words, never merged

    def fresh() -> list[src.Candidate]:
        return [_candidate(text, at + k) for k, text in enumerate(texts)]

    indexed, pairwise = merge_near_duplicates(fresh()), _merged_pairwise(fresh())
    assert [(c.text, c.sources) for c in indexed] == [(c.text, c.sources) for c in pairwise]
    assert len(pairwise) < len(texts) - 50  # many merged
    # the tightest case: 9 of 10 words; each is indexed and probed by its two rarest words
    ten = "alpha bravo charlie delta echo foxtrot golf hotel kilo juliet"
    nine = ten.removesuffix(" juliet")
    assert [c.text for c in merge_near_duplicates([_candidate(nine, at), _candidate(ten, at)])] == [
        ten
    ]


def test_thousands_of_candidates_merge_without_weighing_every_pair() -> None:
    """A month of recalls: 6,000 distinct candidates, 18 million pairs (minutes, pairwise)."""
    rng = random.Random(9)
    at = (NOW - timedelta(days=1)).timestamp()
    found = [_candidate(" ".join(scale._words(rng, 12)), at + k) for k in range(6000)]
    began = time.monotonic()
    kept = merge_near_duplicates(found)
    assert time.monotonic() - began < 5.0  # well under a second here
    assert len(kept) > 5900


def _synthetic_home(root: Path, messages: int, rng: random.Random) -> Home:
    """Journal days and chat sessions spread over a week, some saying a value again
    differently; recalls by interactive searches — the shapes dreaming reads."""
    home = learning_home(root, dream=DreamConfig(min_recalls=1, min_distinct_queries=1))
    journal = Journal(home.layout, home.history)
    for back in range(7, 0, -1):
        for hour in (9, 11, 15):
            with frozen_clock(NOW - timedelta(days=back, hours=24 - hour)):
                text = OLD.replace("5432", str(1000 * back + hour))
                journal.append(f"- {scale._text(rng)}\n- {text}", source="cli")
    made = 0
    while made < messages:
        started = (NOW - timedelta(days=rng.uniform(0.1, 7))).timestamp()
        sid = home.archive.start_session(rng.choice(("cli", "mcp", "cron")), started_at=started)
        size = rng.randint(5, 30)
        for k in range(size):
            said = scale._text(rng) if rng.random() < 0.9 else NEW.replace("6543", str(k))
            role = "user" if k % 2 == 0 else "assistant"
            # a session's messages a minute apart: some within the 10-minute gap, some past it
            home.archive.append(sid, Message(role, said, created_at=started + 60 * (k // 3)))
        made += size
    engine = SearchEngine(home.archive, None, home.config.search, layout=home.layout)
    for query in [*scale._queries(rng, 25), "staging database port", "pgbouncer port"]:
        with frozen_clock(NOW - timedelta(hours=rng.uniform(1, 48))):
            engine.search(query)
    return home


def test_a_dry_run_decides_as_the_exhaustive_method(tmp_path: Path) -> None:
    home = _synthetic_home(tmp_path / "home", 1500, random.Random(11))
    indexed = Dreamer(home).run(dry_run=True).to_dict()
    every = Dreamer(home, superseders=supersede.exhaustive).run(dry_run=True).to_dict()
    assert indexed == every
    considered = indexed["considered"]
    assert isinstance(considered, list) and len(considered) > 50
    superseded = [row for row in considered if "superseded_by" in row]
    assert len(superseded) > 5 and len(superseded) < len(considered)
