"""Tests for the literal prefilters (kenning.safety.prefilter) and for the screen that uses
them: what a regex is derived to need, that folding never hides a case-insensitive match, and
that skipping the rules a text cannot match changes no finding on the whole corpus."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kenning.bench.safety import latency_samples, load_corpus
from kenning.safety import prefilter, screen
from kenning.safety.patterns import RULES
from kenning.safety.patterns.schema import ClauseRule, ascii_regex, english_regex
from kenning.safety.prefilter import All, AnyOf, Index, Literals, fold, holds, requirement

CORPUS = Path(__file__).parent / "corpus" / "corpus.jsonl"
HYPOTHESIS = settings(database=None, deadline=None, max_examples=300)


def _literals_of(need: prefilter.Requirement) -> set[str]:
    if need is None:
        return set()
    if isinstance(need, frozenset):
        return set(need)
    return set().union(*(_literals_of(part) for part in need.parts))


def test_a_pipeline_needs_its_download_tool_the_pipe_and_the_shell() -> None:
    need = requirement(ascii_regex(r"(?:curl|wget)\s+\S+\s*\|\s*(?:ba)?sh\b"))
    assert isinstance(need, All)
    assert set(need.parts) == {
        frozenset({"curl", "wget"}),
        frozenset({"|"}),
        frozenset({"sh", "bash"}),
    }
    assert holds(need, frozenset({"wget", "|", "sh"}))
    assert not holds(need, frozenset({"wget", "sh"}))  # no pipe: it cannot match


def test_alternatives_each_keep_what_they_need() -> None:
    need = requirement(english_regex(r"ignore\s+(?:all\s+)?previous | disregard\s+rules"))
    assert isinstance(need, AnyOf)
    assert holds(need, frozenset({"ignore", "previous"}))
    assert holds(need, frozenset({"disregard", "rules"}))
    assert not holds(need, frozenset({"ignore", "rules"}))
    assert need.hint == frozenset({"ignore", "previous", "disregard", "rules"}) & need.hint


def test_lookaheads_count_optional_parts_do_not() -> None:
    need = requirement(ascii_regex(r"^(?=[^\n]*\bcurl\b)[^\n]*?(?:-d\s+@)?\.env"))
    assert _literals_of(need) == {"curl", ".env"}
    assert requirement(ascii_regex(r"\w+\s*\d+")) is None  # no literal: always run


def test_case_is_folded_on_both_sides() -> None:
    need = requirement(re.compile("IGNORE", re.IGNORECASE))
    assert need == frozenset({"ignore"})
    assert Literals("Please İGNORE it", Index([need]), scan="every").holds(need)
    assert Literals("ſystem", Index([frozenset({"system"})]), scan="every").holds(
        frozenset({"system"})
    )


def test_folding_never_hides_a_case_insensitive_match() -> None:
    """Every character ``re.IGNORECASE`` matches a literal character of the rule table with
    folds to what that literal folds to, so a folded substring test cannot miss it."""
    literal_chars = set()
    for need in screen._plan().needs:
        for part in need:
            literal_chars.update("".join(_literals_of(part)))
    every = "".join(chr(cp) for cp in range(sys.maxunicode + 1) if not 0xD800 <= cp < 0xE000)
    cased = sorted(c for c in literal_chars if c.upper() != c.lower())
    assert cased  # the table has cased literals: the test checks something
    for char in cased:
        for found in re.finditer(re.escape(char), every, re.IGNORECASE):
            assert fold(found.group()) == fold(char), (char, found.group())


@HYPOTHESIS
@given(st.text(alphabet=st.sampled_from("abcdeİıſSsKkΣσς |/-.\n"), max_size=60))
def test_the_ways_of_reading_literals_agree(text: str) -> None:
    rows = [
        frozenset({"abc", "ab", "|"}),
        All((frozenset({"cde"}), frozenset({"s"})), frozenset({"cde"})),
        AnyOf(
            (frozenset({"σ"}), All((frozenset({"k"}), frozenset({"-."})), frozenset({"k"}))),
            frozenset({"σ", "k"}),
        ),
        frozenset({"i", "ſs"}),
    ]
    index = Index(rows)
    exact = [Literals(text, index, scan=scan) for scan in ("every", "none")]
    grams = Literals(text, index, scan="grams")
    for row, need in enumerate(rows):
        truth = any(literal in fold(text) for literal in _literals_of(need)) and _naive(
            need, fold(text)
        )
        assert [r.possible(row) and r.holds(need) for r in exact] == [truth] * 2
        if truth:  # the grams may let a row through that cannot match, never the other way
            assert grams.possible(row) and grams.holds(need)


def _naive(need: prefilter.Requirement, folded: str) -> bool:
    if need is None:
        return True
    if isinstance(need, frozenset):
        return any(literal in folded for literal in need)
    if isinstance(need, All):
        return all(_naive(part, folded) for part in need.parts)
    return any(_naive(part, folded) for part in need.parts)


def test_every_rule_of_the_table_has_a_requirement() -> None:
    """A rule without one runs on every text: the table should not grow such rows unnoticed."""
    plan = screen._plan()
    missing = [
        rule.pattern_id
        for rule, needs in zip(RULES, plan.needs, strict=True)
        if not isinstance(rule, ClauseRule) and needs[0] is None
    ]
    assert missing == []


def _texts() -> list[str]:
    items = load_corpus(CORPUS)
    return [item.text for item in items] + latency_samples(items, count=60)


def _spans(text: str, scope: screen.Scope, *, exhaustive: bool) -> set[tuple[str, tuple[int, int]]]:
    found = screen.screen_text(text, scope, exhaustive=exhaustive)
    return {(f.pattern_id, f.span) for f in found}


@pytest.mark.parametrize("scope", ["memory", "rules", "script"])
def test_the_prefilter_changes_no_finding_on_the_corpus(scope: screen.Scope) -> None:
    differ = [
        text[:60]
        for text in _texts()
        if _spans(text, scope, exhaustive=False) != _spans(text, scope, exhaustive=True)
    ]
    assert differ == []


def test_the_prefilter_skips_most_rules_on_an_ordinary_note() -> None:
    note = "Prefers tabs over spaces; the staging database is db-2 in eu-west. " * 30
    window = screen._Text(note, 0, {"base": screen.base_view(note)})
    literals = window.literals("base", quoted=False)
    assert literals is not None
    possible = [row for row in range(len(RULES)) if literals.possible(row)]
    assert len(possible) < len(RULES) // 4


def test_corpus_rows_stay_json() -> None:  # the corpus the equivalence test reads
    assert all(json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines())


def test_the_tables_requirements_read_at_once_answer_as_read_part_by_part() -> None:
    # :class:`Literals` answers every requirement of the table from one vector program
    # (shared parts read once, height by height); ``holds`` reads one part at a time.
    plan = screen._plan()
    needs = [need for row in plan.needs for need in row]
    for text in latency_samples(load_corpus(CORPUS), count=30):
        literals = Literals(text, plan.index, scan="every")
        present = plan.index.present(fold(text))
        assert [literals.holds(n) for n in needs] == [holds(n, present) for n in needs]
        assert [literals.possible(row) for row in range(len(RULES))] == [
            holds(need, present) for need in plan.index.rows
        ]
