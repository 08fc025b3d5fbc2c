"""Threat scanning for every text that will reach a model's prompt: the public API and engine.

Memory and journal entries, skill files and rule files (SOUL.md, AGENTS.md) all end up in a
model's prompt. A tool's write is scanned first (:func:`scan`) and refused with the reason
(:func:`describe`); hand-edited text that matches is replaced when rendered (:func:`neutralise`).
A scan (1) looks at the first 64 KiB and the last 16 KiB only; (2) checks the RAW text for
invisible and bidirectional characters (:mod:`kenning.safety.legacy.unicode`), which NFKC keeps;
(3) normalises the text, so "ig\\u200bnore" or fullwidth "ｉｇｎｏｒｅ" still read "ignore";
(4) searches it with every pattern of the scope (:mod:`kenning.safety.legacy.patterns`, where the
scopes are described), and reports each pattern id once. Known limits: quoting an attack cannot
be told from making one (paraphrase it); mixed-script homoglyphs (Cyrillic "і" for "i") are out
of scope, NFKC does not fold them; attacks split across lines, hidden in variables or encoded
are not recognised. A tripwire, not a sandbox.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, get_args

from kenning.safety.legacy.patterns import PATTERNS, Category, Scope
from kenning.safety.legacy.unicode import (
    INVISIBLE_REASONS,
    find_invisible,
    is_suspect,
    separate_words,
    strip_invisible,
)

__all__ = [
    "CATEGORIES",
    "SCOPES",
    "Category",
    "Finding",
    "Scope",
    "describe",
    "is_safe",
    "neutralise",
    "normalise",
    "scan",
]

CATEGORIES: Final[tuple[Category, ...]] = get_args(Category)
SCOPES: Final[tuple[Scope, ...]] = get_args(Scope)


@dataclass(frozen=True)
class Finding:
    """One reason a text is unsafe."""

    pattern_id: str  # short stable id, e.g. "ignore_previous_instructions"
    category: Category
    reason: str  # one human sentence; never contains the matched text
    excerpt: str  # the matched text, <= 80 chars, invisible chars as \u escapes


# Bounded cost: scanning is regex work proportional to the text's length and runs on every write
# and every prompt render. Memory entries and rule paragraphs are small, so the cap never matters
# for them; for a pathological multi-megabyte paste it keeps a scan well under a second. The head
# is what a model attends to most, the tail is where appended payloads land. A cost bound, not a
# safety boundary: callers accepting big texts must bound their size. Counted in characters.
_HEAD_CHARS: Final = 64 * 1024
_TAIL_CHARS: Final = 16 * 1024
_EXCERPT_MAX: Final = 80

# Findings are listed in table order: the patterns, then the kinds of invisible character.
_ORDER: Final = {
    pattern_id: n
    for n, pattern_id in enumerate([*(p.pattern_id for p in PATTERNS), *INVISIBLE_REASONS])
}


def scan(text: str, scope: Scope = "memory") -> list[Finding]:
    """Every threat in ``text`` for ``scope`` (one per pattern id); an empty list means clean."""
    if scope not in SCOPES:
        raise ValueError(f"unknown scope {scope!r}; expected one of {', '.join(SCOPES)}")
    windows = [(text, True)]
    if len(text) > _HEAD_CHARS + _TAIL_CHARS:
        windows = [(text[:_HEAD_CHARS], True), (text[-_TAIL_CHARS:], False)]
    found: dict[str, Finding] = {}
    for window, at_text_start in windows:
        for finding in _invisible_findings(window, at_text_start):
            found.setdefault(finding.pattern_id, finding)
        matchable = normalise(window)
        for p in PATTERNS:
            if scope in p.scopes and p.pattern_id not in found:
                m = p.regex.search(matchable)
                if m is not None:
                    excerpt = _excerpt(m.group(), redact=p.category == "secret")
                    found[p.pattern_id] = Finding(p.pattern_id, p.category, p.reason, excerpt)
    return sorted(found.values(), key=lambda f: _ORDER[f.pattern_id])


def is_safe(text: str, scope: Scope = "memory") -> bool:
    """True if :func:`scan` finds nothing."""
    return not scan(text, scope)


def describe(findings: Sequence[Finding]) -> str:
    """The distinct reasons on one line, for an error message; never the matched text."""
    reasons = list(dict.fromkeys(f.reason for f in findings))
    return "; ".join(reasons) if reasons else "no threats found"


def neutralise(text: str, scope: Scope = "memory") -> str:
    """``text`` unchanged if it is clean, otherwise a placeholder naming the reasons."""
    findings = scan(text, scope)
    if not findings:
        return text
    return f"[BLOCKED: {describe(findings)} — this entry was not loaded; review and remove it]"


def normalise(text: str) -> str:
    """Prepare ``text`` for matching: NFKC (folds fullwidth, mathematical and circled letters,
    ligatures, odd spaces), invisible characters removed, case kept (matching ignores case)."""
    # Stripped before NFKC so that "e\u200b\u0301" composes, and again after it, in case NFKC
    # ever folds a character into one that is stripped.
    folded = strip_invisible(unicodedata.normalize("NFKC", strip_invisible(text)))
    return separate_words(folded)


def _invisible_findings(window: str, at_text_start: bool) -> list[Finding]:
    """A finding per kind of invisible character, its excerpt around the first one."""
    findings = []
    for kind, i in find_invisible(window, at_text_start=at_text_start).items():
        excerpt = _excerpt(window[max(0, i - 24) : i + 24])
        findings.append(Finding(kind, "invisible_unicode", INVISIBLE_REASONS[kind], excerpt))
    return findings


def _excerpt(matched: str, *, redact: bool = False) -> str:
    """One line, at most 80 characters, invisible characters as escapes."""
    text = " ".join("".join(_escape_char(c) for c in matched[:400]).split())
    if redact:  # never echo a credential into an error message or a log
        return text[:6] + "…[redacted]"
    return text if len(text) <= _EXCERPT_MAX else text[: _EXCERPT_MAX - 1] + "…"


def _escape_char(ch: str) -> str:
    """Whitespace as a space; invisible characters and line separators as a \\u escape."""
    if ch in "\t\n\r\x0c":
        return " "
    if is_suspect(ch) or unicodedata.category(ch) in ("Zl", "Zp"):
        return f"\\u{ord(ch):04x}" if ord(ch) <= 0xFFFF else f"\\U{ord(ch):08x}"
    return ch
