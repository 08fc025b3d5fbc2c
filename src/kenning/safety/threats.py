"""Threat screening for every text that will reach a model's prompt: the public API.

Memory and journal entries, skill files and rule files (SOUL.md, AGENTS.md) all end up in a
model's prompt. A tool's write is screened first (:func:`scan`) and refused with the reasons
(:func:`describe`) and the rule and span of each finding (:func:`explain`); hand-edited text
that matches is replaced when rendered (:func:`neutralise`). The screen itself is
:mod:`kenning.safety.screen` (layers: rules over canonical views, invisible characters,
decoded payloads, a learned classifier); :func:`redact` removes secrets from text shown to a
model that the archive must keep verbatim. Known limits: quoting an attack cannot be told from
making one (paraphrase it); a narrative about a destructive command ("rm -rf ~ once wiped my
laptop") reads as the command. A tripwire, not a sandbox.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Final, get_args

from kenning.safety import screen
from kenning.safety.findings import Finding
from kenning.safety.patterns import Category, Scope
from kenning.safety.unicode import separate_words, strip_invisible

__all__ = [
    "CATEGORIES",
    "SCOPES",
    "Category",
    "Engine",
    "Finding",
    "Scope",
    "advice",
    "current",
    "describe",
    "engine",
    "explain",
    "is_safe",
    "neutralise",
    "normalise",
    "redact",
    "scan",
]

CATEGORIES: Final[tuple[Category, ...]] = get_args(Category)
SCOPES: Final[tuple[Scope, ...]] = get_args(Scope)

# What scans a text: the screen, or a replacement installed by :func:`engine`.
Engine = Callable[[str, Scope], list[Finding]]
_ENGINE: ContextVar[Engine | None] = ContextVar("kenning_threat_engine", default=None)


@contextmanager
def engine(replacement: Engine) -> Iterator[None]:
    """Within the block, every :func:`scan` (so every writer) runs ``replacement`` instead.

    For ``kenning bench safety``, which drives the real writers once with the frozen baseline
    scanner (:mod:`kenning.safety.legacy`) and once with this one, in the same process."""
    token = _ENGINE.set(replacement)
    try:
        yield
    finally:
        _ENGINE.reset(token)


def scan(text: str, scope: Scope = "memory") -> list[Finding]:
    """Every threat in ``text`` for ``scope`` (one per rule id); an empty list means clean."""
    if scope not in SCOPES:
        raise ValueError(f"unknown scope {scope!r}; expected one of {', '.join(SCOPES)}")
    replacement = _ENGINE.get()
    if replacement is not None:
        return replacement(text, scope)
    return current(text, scope)


def current(text: str, scope: Scope = "memory") -> list[Finding]:
    """The layered screen itself, whatever :func:`engine` installed."""
    return screen.screen_text(text, scope)


def is_safe(text: str, scope: Scope = "memory") -> bool:
    """True if :func:`scan` finds nothing."""
    return not scan(text, scope)


def describe(findings: Sequence[Finding]) -> str:
    """The distinct reasons on one line, for an error message; never the matched text."""
    reasons = screen.first_reasons(findings)
    return "; ".join(reasons) if reasons else "no threats found"


def explain(findings: Sequence[Finding]) -> str:
    """Which rule fired where, on one line: "rule ignore_previous_instructions at chars 0-28
    («Ignore previous instructions»)"; secrets are shown redacted."""
    parts = [f"rule {f.pattern_id} at {f.where} («{f.excerpt}»)" for f in findings]
    return "; ".join(parts) if parts else "no rule fired"


# What to store instead, by category: a refusal says how to keep the useful part as a fact.
_ADVICE: Final[dict[str, str]] = {
    "secret": "Store where the secret lives instead of the secret itself, e.g. 'the deploy key "
    "is in the team vault under ci/deploy' or 'read from $OPENAI_API_KEY'.",
    "injection": "Store what is true as a plain fact about the user or the project ('User "
    "prefers X', 'Project uses Y'), not as orders to the assistant.",
    "phishing": "Never store a request for the user's secrets; store where they keep them.",
}
_DEFAULT_ADVICE: Final = (
    "Rephrase it as a plain declarative fact without the flagged part (describe a command "
    "in words, or as a rule against it: 'never pipe downloads into sh'), or do not store it."
)


def advice(findings: Sequence[Finding]) -> str:
    """How to phrase the useful part of a refused text as something that can be stored."""
    for finding in findings:
        if finding.category in _ADVICE:
            return _ADVICE[finding.category]
    return _DEFAULT_ADVICE


def neutralise(text: str, scope: Scope = "memory") -> str:
    """``text`` unchanged if it is clean, otherwise a placeholder naming the reasons."""
    findings = scan(text, scope)
    if not findings:
        return text
    return f"[BLOCKED: {describe(findings)} — this entry was not loaded; review and remove it]"


def redact(text: str) -> str:
    """``text`` with every secret the screen finds replaced by ``[REDACTED secret]``."""
    from kenning.safety.redaction import redact_secrets

    return redact_secrets(text)


def normalise(text: str) -> str:
    """Prepare ``text`` for matching: NFKC (folds fullwidth, mathematical and circled letters,
    ligatures, odd spaces), invisible characters removed, case kept (matching ignores case)."""
    # Stripped before NFKC so that "e\u200b\u0301" composes, and again after it, in case NFKC
    # ever folds a character into one that is stripped.
    folded = strip_invisible(unicodedata.normalize("NFKC", strip_invisible(text)))
    return separate_words(folded)
