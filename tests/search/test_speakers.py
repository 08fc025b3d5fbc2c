"""A query naming a speaker prefers what that speaker said (search.speakers)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from kenning.archive.store import Archive, Message
from kenning.search import speakers
from kenning.search.engine import SearchEngine
from kenning.storage.query import SearchFilters

from .conftest import add_session


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("What video games does Nate play?", {"Nate"}),
        ("what does nate's sister do?", {"Nate"}),  # lowercase, possessive
        ("Where did John and Maria meet?", {"John Smith", "Maria"}),  # a part of a full name
        ("Where did Natalie go?", set()),  # a whole word only
        ("What will the user do next?", set()),  # "Will" as a word, a role
        ("What did Will say?", {"Will"}),
        ("小明去了哪里?", {"小明"}),
        ("What did the assistant suggest?", set()),
    ],
)
def test_named_speakers(query: str, expected: set[str]) -> None:
    known = ["Nate", "John Smith", "Maria", "Will", "小明", "user", "assistant", None]
    assert speakers.named(query, known) == expected


def test_factors_are_off_when_nobody_is_named() -> None:
    assert speakers.factors("What games do people play?", ["Nate", "Joanna"], 0.8) is None
    assert speakers.factors("What does Nate play?", ["Nate", "Joanna"], 1.0) is None
    got = speakers.factors("What does Nate play?", ["Nate", "Joanna", None], 0.8)
    assert got is not None and got.tolist() == [1.0, 0.8, 0.8]


def _chat(archive: Archive) -> tuple[int, int]:
    # Joanna's question shares more of the query's words than Nate's own answer.
    _, ids = add_session(
        archive,
        [
            ("Joanna", "Nate, what video games do you play?"),
            ("Nate", "I play Valorant and other video games"),
            ("Joanna", "nice, my cat sleeps on the sofa"),
        ],
    )
    return ids[0], ids[1]


def test_the_named_speakers_answer_ranks_first(archive: Archive, engine: SearchEngine) -> None:
    joanna, nate = _chat(archive)
    query = "what video games does Nate play"
    engine.index_pending()
    off = replace(engine.params, other_speaker_factor=1.0)
    plain = SearchEngine(archive, engine.embedder, params=off)
    assert plain.search(query, kinds=("message",)).hits[0].id == joanna
    assert engine.search(query, kinds=("message",)).hits[0].id == nate
    # inside a scope the speakers come from the storage, not the in-memory copy
    scoped = engine.search(query, kinds=("message",), filters=SearchFilters(roles=("user",)))
    assert scoped.hits[0].id == nate


def test_role_only_archives_rank_as_before(archive: Archive, engine: SearchEngine) -> None:
    sid = archive.start_session("cli")
    for role, text in (("user", "which video games do you play"), ("assistant", "I play none")):
        archive.append(sid, Message(role, text))  # type: ignore[arg-type]
    engine.index_pending()
    off = SearchEngine(
        archive, engine.embedder, params=replace(engine.params, other_speaker_factor=1.0)
    )
    query = "what video games does the user play"
    got = [(h.id, round(h.score, 9)) for h in engine.search(query, kinds=("message",)).hits]
    assert got == [(h.id, round(h.score, 9)) for h in off.search(query, kinds=("message",)).hits]
    assert got
