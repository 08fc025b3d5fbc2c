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
from dataclasses import dataclass
from typing import Final, Literal

Category = Literal[
    "injection",
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


@dataclass(frozen=True)
class Pattern:
    """One row of the table: one kind of attack."""

    pattern_id: str  # short and stable: tests, logs and users refer to it
    category: Category
    scopes: frozenset[Scope]
    reason: str  # one human sentence, shown to the user; never contains the matched text
    regex: re.Pattern[str]


# VERBOSE: spaces and line breaks in a regex mean nothing (a literal space is written [ ] or \s)
# and "#" starts a comment, so a regex can be laid out one alternative at a time.
_FLAGS: Final = re.IGNORECASE | re.MULTILINE | re.VERBOSE

# Between two English words: whitespace, maybe wrapped in markdown emphasis ("**ignore**
# previous") or quotes, or one - or _ ("ignore-previous"). The character sets are disjoint from
# \s, so the regex cannot backtrack badly.
WORD_GAP: Final = r"(?:[*_~`\"'“”‘’]{0,3}\s+[*_~`\"'“”‘’]{0,3}|[-_])"


def ascii_regex(regex: str) -> re.Pattern[str]:
    """Commands, paths, markup and tokens: ``\\b \\w \\s`` are ASCII-only."""
    return re.compile(regex, _FLAGS | re.ASCII)


def english_regex(regex: str) -> re.Pattern[str]:
    """An English phrase: as :func:`ascii_regex`, and every ``\\s+`` also matches
    :data:`WORD_GAP`. ASCII-only, so "请ignore" still has a word boundary before "ignore"."""
    return re.compile(regex.replace(r"\s+", WORD_GAP), _FLAGS | re.ASCII)


def multilingual_regex(regex: str) -> re.Pattern[str]:
    """A phrase in other languages: ``\\b \\w \\s`` know every script ("é", "ü", "李")."""
    return re.compile(regex, _FLAGS)
