"""Tests for the first-character lookahead put before long alternations
(kenning.safety.first_chars, applied by compiled.regex): a guarded pattern finds the same
matches with the same groups as ``re.compile``'s, on every regex of the rule table over corpus
texts and on generated patterns; the guard is there where it pays and absent where it cannot
be sound or useful."""

from __future__ import annotations

import importlib
import re
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from kenning.bench.safety import default_corpus, latency_samples, load_corpus
from kenning.safety import compiled, first_chars
from kenning.safety.patterns import RULES
from kenning.safety.patterns.schema import ClauseRule

_parser: Any = importlib.import_module("re._parser")
_sre: Any = importlib.import_module("_sre")
HYPOTHESIS = settings(database=None, deadline=None, max_examples=400)


def _found(regex: re.Pattern[str], text: str) -> list[tuple[tuple[int, int], tuple[Any, ...]]]:
    return [(m.span(), m.groups()) for m in regex.finditer(text)]


def _guards(pattern: str, flags: int) -> int:
    """How many lookaheads the guard puts into ``pattern``."""
    plain = str(_parser.parse(pattern, flags).data).count("(ASSERT,")
    return str(first_chars.guard(_parser.parse(pattern, flags)).data).count("(ASSERT,") - plain


def _table() -> list[re.Pattern[str]]:
    found: list[re.Pattern[str]] = []
    for rule in RULES:
        if isinstance(rule, ClauseRule):
            found.extend(r for alt in rule.alternatives for r in alt)
            found.extend(filter(None, [rule.latin_gate]))
        else:
            found.extend(filter(None, [rule.regex, rule.gate]))
    return found


def test_every_regex_of_the_table_matches_as_re_compile_does() -> None:
    texts = latency_samples(load_corpus(default_corpus()), count=12)
    table = _table()
    guarded = [r for r in table if _guards(r.pattern, r.flags)]
    assert len(guarded) > len(table) // 4  # the rules' alternations are guarded
    differ = [
        (regex.pattern[:60], text[:40])
        for regex in guarded
        for text in texts
        if _found(regex, text) != _found(re.compile(regex.pattern, regex.flags), text)
    ]
    assert differ == []


def test_a_case_insensitive_word_list_is_guarded_and_unsafe_ones_are_not() -> None:
    words = r"x\b(?:new|changed|from\s+now|instead|neu\w*)\b"
    assert _guards(words, re.IGNORECASE) == 1
    assert _guards(r"x(?:new|\w+ed|from|into)", re.IGNORECASE) == 0  # \w: nearly anything
    assert _guards(r"x(?:new|old|from|a?)", 0) == 0  # one alternative can be empty
    assert _guards(r"x(?:new|old|.a|into)", 0) == 0  # any character
    assert _guards(r"x(?:new|old|[^a]b|into)", 0) == 0  # a negated class
    assert _guards(r"x(?:new|old|(?i:from)|into)", 0) == 0  # the case rules change inside
    assert _guards(r"x(?:ab|cd)", 0) == 0  # too short to pay
    assert _guards(r"(?<=(?:new|old|from|into))x", 0) == 0  # inside a lookbehind
    # re scans for the literal prefix itself: the start is left to it
    assert _guards(r"(?:new|old|from|into)x", 0) == 0
    # ... but under IGNORECASE it does not, and the start is guarded too
    assert _guards(r"(?:new|old|from|into)x", re.IGNORECASE) == 1


def test_the_guarded_code_is_what_compiled_regex_runs() -> None:
    pattern = r"\bx\s(?:new|changed|from\s+now|instead)\b"
    regex = compiled.regex(pattern, re.IGNORECASE)
    assert regex.pattern == pattern  # the source the prefilter and starts read is unchanged
    assert _found(regex, "X NEW, x Instead, xnew") == [((0, 5), ()), ((7, 16), ())]


_PIECES = st.sampled_from(
    [
        "new",
        "New",
        "ne",
        "w",
        r"\b",
        r"\s+",
        r"\d",
        "[ab]",
        "[A-C]",
        "k",
        "ſ",
        "K",
        "é",
        "É",
        "ß",
        "ss",
        "账",
        "户",
        "(a)",
        "(?:o|u)",
        "b?",
        "c*",
        r"\w*",
        "(?=n)",
        "(?!e)",
        "x{0,2}",
        "$",
    ]
)
_ALTERNATIVE = st.lists(_PIECES, min_size=1, max_size=4).map("".join)


@HYPOTHESIS
@given(
    before=st.sampled_from(["", "a", r"\b", "^", "(z)"]),
    alternatives=st.lists(_ALTERNATIVE, min_size=4, max_size=7),
    after=st.sampled_from(["", "b", r"\b", "(y)?"]),
    flags=st.sampled_from([0, re.IGNORECASE, re.IGNORECASE | re.MULTILINE]),
    text=st.text(alphabet="newNWabcABCkKſéÉßs账户ouz y\n1Kx", max_size=40),
)
def test_generated_alternations_match_as_re_compile_does(
    before: str, alternatives: list[str], after: str, flags: int, text: str
) -> None:
    pattern = f"{before}(?:{'|'.join(alternatives)}){after}"
    guarded = _sre.compile(*compiled._code(pattern, flags))  # the code compiled.regex keeps
    plain = re.compile(pattern, flags)
    assert _found(guarded, text) == _found(plain, text)
    assert [guarded.match(text, i) is None for i in range(len(text))] == [
        plain.match(text, i) is None for i in range(len(text))
    ]
