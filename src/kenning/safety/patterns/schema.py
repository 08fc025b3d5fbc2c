"""What a row of the pattern table is, the scopes rows apply to, and how their regexes compile.

The row modules (:mod:`.injection`, :mod:`.payloads`, :mod:`.credentials`) build their
:class:`Pattern` entries from what is defined here. A regex is written in ``re.VERBOSE`` mode and
compiled by one of three helpers, chosen by the kind of text it matches: :func:`english_regex`
(English phrases, forgiving about what separates words), :func:`multilingual_regex` (phrases in
other languages) or :func:`ascii_regex` (commands, paths, markup, tokens). All three match
case-insensitively and line by line (``^`` and ``$`` match at line ends).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, Literal

from kenning.safety import compiled

Category = Literal[
    "injection",
    "phishing",
    "exfiltration",
    "persistence",
    "invisible_unicode",
    "secret",
    "destructive",
    "remote_code",
]
Scope = Literal["memory", "rules", "script"]

# Scopes nest by who writes the text. "rules" (SOUL.md, AGENTS.md: written by the user) checks
# only hidden or harmful payloads: invisible Unicode, exfiltration, persistence. Not generic
# injection phrases -- a rule file legitimately *is* instructions ("You are a concise
# assistant", "From now on you are the release manager") -- nor secrets: it is the user's own
# file. "memory" (memory and journal entries, written by the agent, so by whoever got text into
# its context) adds injection and secrets. "script" (skill files) adds destructive commands,
# remote code and autostart services, which stay out of memory: "rm -rf ~ once wiped my laptop"
# runs nothing.
ALL: Final[frozenset[Scope]] = frozenset({"memory", "rules", "script"})
MEMORY: Final[frozenset[Scope]] = frozenset({"memory", "script"})
SCRIPT: Final[frozenset[Scope]] = frozenset({"script"})


# The views of a text a row is matched against (see kenning.safety.canonical): the base text;
# "bare", the base without stray combining marks; "folded", the ASCII skeleton; the leet and
# letter-spacing readings of it. English phrases read all of them, commands the base and the
# skeleton (a Cyrillic "сurl" is still curl), other languages the base and bare forms.
View = Literal["base", "bare", "folded", "leet_i", "leet_l", "spaced"]
BASE: Final[frozenset[View]] = frozenset({"base"})
COMMAND: Final[frozenset[View]] = frozenset({"base", "folded"})
ENGLISH: Final[frozenset[View]] = frozenset({"base", "folded", "leet_i", "leet_l", "spaced"})
NATIVE: Final[frozenset[View]] = frozenset({"base", "bare"})
EVERY: Final[frozenset[View]] = frozenset({"base", "bare", "folded", "leet_i", "leet_l", "spaced"})


@dataclass(frozen=True)
class Pattern:
    """One row of the table: one kind of attack."""

    pattern_id: str  # short and stable: tests, logs and users refer to it
    category: Category
    scopes: frozenset[Scope]
    reason: str  # one human sentence, shown to the user; never contains the matched text
    regex: re.Pattern[str]
    views: frozenset[View] = ENGLISH
    # A match right after "never", "don't", "不要" ... in the same sentence is a rule against
    # the thing, not the thing ("Never run `curl | sh` installers"): skipped.
    negatable: bool = False
    # Inline code (`...`) is read as blank: markers quoted in documentation are mentions.
    skip_inline_code: bool = False
    # A match this returns True for is ordinary use, not an attack (see commands._own_service).
    exempt: Callable[[str], bool] | None = None
    # A cheap regex that must match somewhere in the text before the row's regex is tried.
    gate: re.Pattern[str] | None = None


@dataclass(frozen=True)
class ClauseRule:
    """A row matched clause by clause: it fires when, within one clause (up to a sentence end),
    every regex of one of its alternatives matches. For languages where word order is free or
    words are not separated, co-occurrence in a clause is what a phrase can require."""

    pattern_id: str
    category: Category
    scopes: frozenset[Scope]
    reason: str
    alternatives: tuple[tuple[re.Pattern[str], ...], ...]
    views: frozenset[View] = NATIVE
    negatable: bool = False
    # Per alternative, the script its first part is written in ("cjk", "cyrillic" ...), or ""
    # for Latin or mixed: an alternative is only tried on a text that holds its script.
    scripts: tuple[str, ...] = ()
    # One regex of the first parts of all Latin-script alternatives: when it finds nothing,
    # none of them can fire and they are skipped together.
    latin_gate: re.Pattern[str] | None = None


Rule = Pattern | ClauseRule

# Scripts a clause alternative can be written in, by character range.
SCRIPTS: Final[dict[str, re.Pattern[str]]] = {
    "cjk": compiled.regex("[\u4e00-\u9fff\u3400-\u4dbf]"),
    "kana": compiled.regex("[\u3040-\u30ff]"),
    "hangul": compiled.regex("[\uac00-\ud7af\u1100-\u11ff]"),
    "cyrillic": compiled.regex("[\u0400-\u04ff]"),
    "arabic": compiled.regex("[\u0600-\u06ff]"),
    "devanagari": compiled.regex("[\u0900-\u097f]"),
}


def script_of(source: str) -> str:
    """The one non-Latin script ``source`` is written in, or "" (Latin, or several)."""
    found = [name for name, chars in SCRIPTS.items() if chars.search(source)]
    if found == ["cjk", "kana"] or found == ["kana"]:
        return "kana"
    return found[0] if len(found) == 1 else ""


def clause_rule(
    pattern_id: str,
    category: Category,
    scopes: frozenset[Scope],
    reason: str,
    alternatives: list[tuple[str, ...]],
    *,
    views: frozenset[View] = NATIVE,
    negatable: bool = False,
) -> ClauseRule:
    """A :class:`ClauseRule` from alternatives of regex sources (multilingual flags)."""
    scripts = tuple(script_of(alt[0]) for alt in alternatives)
    # Scripts without case are matched without IGNORECASE, which costs twice the time.
    caseless = ("cjk", "kana", "hangul", "arabic", "devanagari")
    regexes = tuple(
        tuple(
            compiled.regex(part, re.MULTILINE | re.VERBOSE)
            if script in caseless and script_of(part) == script
            else multilingual_regex(part)
            for part in alt
        )
        for alt, script in zip(alternatives, scripts, strict=True)
    )
    latin = [
        f"(?:{alt[0]})" for alt, script in zip(alternatives, scripts, strict=True) if not script
    ]
    gate = multilingual_regex("|".join(latin)) if latin else None
    return ClauseRule(
        pattern_id, category, scopes, reason, regexes, views, negatable, scripts, gate
    )


def gate(words: str) -> re.Pattern[str]:
    """A :attr:`Pattern.gate` from an alternation of words (case-insensitive)."""
    return compiled.regex(words, re.IGNORECASE)


# VERBOSE: spaces and line breaks in a regex mean nothing (a literal space is written [ ] or \s)
# and "#" starts a comment, so a regex can be laid out one alternative at a time.
_FLAGS: Final = re.IGNORECASE | re.MULTILINE | re.VERBOSE

# Between two English words: whitespace, maybe wrapped in markdown emphasis ("**ignore**
# previous") or quotes, or one - or _ ("ignore-previous"). The character sets are disjoint from
# \s, so the regex cannot backtrack badly.
WORD_GAP: Final = r"(?:[*_~`\"'“”‘’]{0,3}\s+[*_~`\"'“”‘’]{0,3}|[-_])"


def ascii_regex(regex: str) -> re.Pattern[str]:
    """Commands, paths, markup and tokens: ``\\b \\w \\s`` are ASCII-only."""
    return compiled.regex(regex, _FLAGS | re.ASCII)


def english_regex(regex: str) -> re.Pattern[str]:
    """An English phrase: as :func:`ascii_regex`, and every ``\\s+`` also matches
    :data:`WORD_GAP`. ASCII-only, so "请ignore" still has a word boundary before "ignore"."""
    return compiled.regex(regex.replace(r"\s+", WORD_GAP), _FLAGS | re.ASCII)


def multilingual_regex(regex: str) -> re.Pattern[str]:
    """A phrase in other languages: ``\\b \\w \\s`` know every script ("é", "ü", "李")."""
    return compiled.regex(regex, _FLAGS)
