"""Where a memory write's content came from, and what that changes: write, hold or refuse.

A write the user typed, or the agent said in its own words, is screened and either written or
refused. Content that came from a tool result or a web page is what a prompt-injection
attacker controls, so it gets a stricter gate: if it is refused it is refused, and if it only
*looks borderline* it is not written but held as a proposal the user accepts or rejects
(``kenning memory proposals``). Borderline means any of: the learned layer's score is in its
review band (:attr:`kenning.safety.screen.Assessment.borderline`), the text carries a URL or
a command, or it tells the assistant what to do ("always", "never", "you must") rather than
stating a fact. Background review and dreaming know the source of what they save:
:func:`borrowed_from` says whether a text was copied from one of the tool results of the
reviewed session.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal

from kenning.safety import compiled
from kenning.safety.findings import Finding
from kenning.safety.patterns import Scope
from kenning.safety.screen import assess

Provenance = Literal["user", "agent", "tool", "web"]
UNTRUSTED: Final[frozenset[str]] = frozenset({"tool", "web"})

_URL: Final = compiled.regex(r"https?://|\bwww\.", re.IGNORECASE)
_COMMAND: Final = compiled.regex(
    r"`[^`\n]*\b(?:curl|wget|sh|bash|sudo|rm|chmod|git\s+push|ssh|scp|nc|python\d?\s+-c)\b"
    r"|\|\s*(?:ba|z)?sh\b|\$\(|\bsudo\s",
    re.IGNORECASE,
)
_DIRECTIVE: Final = compiled.regex(
    r"\b(?:always|never|from\s+now\s+on|you\s+(?:must|should|have\s+to|need\s+to)|make\s+sure\s+"
    r"(?:to|you)|do\s+not|don['’]t|remember\s+to|whenever)\b",
    re.IGNORECASE,
)
_WORDS: Final = compiled.regex(r"\w+")
_SHARED_RUN: Final = 6  # consecutive words shared with a tool result: the text was copied


@dataclass(frozen=True)
class Gate:
    action: Literal["write", "hold", "refuse"]
    findings: tuple[Finding, ...]
    why: str  # for "hold" and "refuse": one line a person can read


def gate(text: str, provenance: Provenance, scope: Scope = "memory") -> Gate:
    """What to do with ``text`` about to be written, given where it came from."""
    verdict = assess(text, scope)
    if verdict.findings:
        return Gate("refuse", tuple(verdict.findings), "refused by the threat screen")
    if provenance not in UNTRUSTED:
        return Gate("write", (), "")
    signals = []
    if verdict.borderline:
        signals.append(f"reads like an injection to the classifier (score {verdict.score:.2f})")
    if _URL.search(text):
        signals.append("carries a URL")
    if _COMMAND.search(text):
        signals.append("carries a command")
    if _DIRECTIVE.search(text):
        signals.append("tells the assistant what to do")
    if not signals:
        return Gate("write", (), "")
    return Gate("hold", (), f"came from {provenance} output and " + ", ".join(signals))


def borrowed_from(text: str, sources: Sequence[str]) -> bool:
    """True if ``text`` shares a run of 6 consecutive words with one of ``sources``."""
    words = [w.casefold() for w in _WORDS.findall(text)]
    if len(words) < _SHARED_RUN:
        runs = {" ".join(words)} if words else set()
    else:
        runs = {" ".join(words[i : i + _SHARED_RUN]) for i in range(len(words) - _SHARED_RUN + 1)}
    for source in sources:
        folded = " " + " ".join(w.casefold() for w in _WORDS.findall(source)) + " "
        if any(run and f" {run} " in folded for run in runs):
            return True
    return False
