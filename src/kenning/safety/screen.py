"""The layered screen: every rule of every layer, on every view of a text, in one pass.

Layers, in the order findings are listed:

1. **rules** (:mod:`.patterns`): instruction override, role hijack, concealment, disabling
   approvals, self-propagation and phishing in many languages; fake structure (chat-template
   tokens, role tags and messages, chat turns, tool-call syntax, comments addressed to the
   model, templated links); exfiltration as a secret source and a network sink on one line;
   persistence, destruction, remote code, reverse shells, foreign pushes; secrets. Each rule
   reads the views of the text it is written for (:mod:`.canonical`): the base form (NFKC,
   invisible characters removed) and, where they differ, the bare, folded (confusables
   skeleton), leetspeak and letter-spacing readings. A match that names the thing rather than
   does it -- a rule against it, an attack quoted as an example, a command that cannot run as
   written, a placeholder secret -- is skipped (:mod:`.mentions`, judged on the base text).
2. **invisible characters** (:mod:`.unicode`), found in the raw text.
3. **decoded payloads** (:mod:`.decode`): base64, hex, escapes, percent-encoding, entities and
   rot13 runs are decoded and the result is screened again (depth and size bounded).
4. **the learned layer** (:mod:`.learned`), when its weights are installed: a classifier over
   character n-grams for the paraphrases and languages no rule lists.

A scan looks at the first 64 KiB and the last 16 KiB of a text (a cost bound: callers that
accept big texts scan them in windows, as skills do).
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Final

from kenning.safety import decode, learned, prefilter
from kenning.safety.canonical import View, base_view, extra_views
from kenning.safety.findings import Finding, excerpt
from kenning.safety.mentions import mentioned
from kenning.safety.patterns import RULES
from kenning.safety.patterns.schema import SCRIPTS, ClauseRule, Pattern, Rule, Scope
from kenning.safety.patterns.structure import mentions_removed
from kenning.safety.unicode import INVISIBLE_REASONS, find_invisible

HEAD_CHARS: Final = 64 * 1024
TAIL_CHARS: Final = 16 * 1024
MAX_DEPTH: Final = 3  # decoding inside decoding: base64 of base64 of a command, and no deeper
_MAX_MENTIONS: Final = 64  # mentions of one rule skipped in a window before it stops looking

# A sentence ends at . ! ? followed by a space (not in "README.md" or "v2.3"), at CJK
# terminators, semicolons and line breaks.
_CLAUSE_END: Final = re.compile(r"[.!?](?=\s|$)|[。！？;；\n]")


@dataclass
class _Text:
    """One window of a text and its views, with lazily computed clause boundaries."""

    raw: str
    offset: int  # where the window starts in the whole text
    views: dict[str, View]
    _clauses: dict[str, list[tuple[int, int]]] = field(default_factory=dict)
    _quoted: dict[str, str] = field(default_factory=dict)
    _scripts: dict[str, frozenset[str]] = field(default_factory=dict)
    _literals: dict[tuple[str, bool], prefilter.Literals] = field(default_factory=dict)
    exhaustive: bool = False  # run every regex, prefilters ignored (to check they change nothing)

    def scripts(self, name: str) -> frozenset[str]:
        """The non-Latin scripts the view holds ("" always: Latin is everywhere)."""
        if name not in self._scripts:
            text = self.views[name].text
            held = {s for s, chars in SCRIPTS.items() if chars.search(text)}
            if "cjk" in held:
                held.add("kana" if SCRIPTS["kana"].search(text) else "cjk")
            self._scripts[name] = frozenset({"", *held})
        return self._scripts[name]

    def clauses(self, name: str) -> list[tuple[int, int]]:
        if name not in self._clauses:
            text = self.views[name].text
            bounds, start = [], 0
            for m in _CLAUSE_END.finditer(text):
                bounds.append((start, m.end()))
                start = m.end()
            bounds.append((start, len(text)))
            self._clauses[name] = bounds
        return self._clauses[name]

    def literals(self, name: str, *, quoted: bool) -> prefilter.Literals | None:
        """The prefilter's literals in the view (or its unquoted text) and the rules they leave
        possible; None when the screen is exhaustive."""
        if self.exhaustive:
            return None
        key = (name, quoted)
        found = self._literals.get(key)
        if found is None:
            text = self.views[name].text
            if quoted and self.unquoted(name) is not text:  # one rule reads it: no pass
                found = prefilter.Literals(self.unquoted(name), _plan().index, scan="none")
            elif quoted:  # no inline code: the same text
                return self.literals(name, quoted=False)
            else:
                scan = "every" if len(text) < SCAN_BELOW else "hinted"
                found = prefilter.Literals(text, _plan().index, scan=scan)
            self._literals[key] = found
        return found

    @property
    def base(self) -> View:
        return self.views["base"]

    def in_base(self, name: str, start: int, end: int) -> tuple[int, int]:
        """The span of the base view that ``views[name].text[start:end]`` came from: mentions
        are judged on the base text, where every script is as written."""
        if name == "base":
            return start, end
        lo, hi = self.views[name].span(start, end)
        origin = self.base.origin
        if origin is None:
            return lo, hi
        return bisect.bisect_left(origin, lo), bisect.bisect_left(origin, hi)

    def unquoted(self, name: str) -> str:
        if name not in self._quoted:
            self._quoted[name] = mentions_removed(self.views[name].text)
        return self._quoted[name]


def _match_pattern(rule: Pattern, text: str, window: _Text, name: str) -> tuple[int, int] | None:
    pos, skipped, mention_end = 0, 0, 0
    while (m := rule.regex.search(text, pos)) is not None:
        # After a mention the search goes on inside it: `mkfifo` + `nc -e /bin/sh x 4444` holds
        # a shell that reaches past it. A match within the mention is part of it.
        pos = m.start() + 1
        if m.end() <= mention_end:
            continue
        if mentioned(rule, window.base.text, [window.in_base(name, m.start(), m.end())]):
            skipped, mention_end = skipped + 1, m.end()
            if skipped > _MAX_MENTIONS:
                return None
            continue
        if rule.exempt is not None and rule.exempt(m.group()):
            continue
        return m.start(), m.end()
    return None


_Needs = tuple[prefilter.Requirement, ...]


# Views shorter than this are read for every literal in one pass, longer ones on demand.
SCAN_BELOW: Final = 1024


@dataclass(frozen=True)
class _Plan:
    """What the literal prefilter (:mod:`.prefilter`) knows of the rule table."""

    needs: tuple[_Needs, ...]  # by index in RULES: a pattern's one, a clause rule's per alternative
    index: prefilter.Index  # its rows: the indices in RULES


@functools.cache
def _plan() -> _Plan:
    needs: list[_Needs] = []
    for rule in RULES:
        if isinstance(rule, ClauseRule):
            needs.append(tuple(prefilter.requirements(alt) for alt in rule.alternatives))
        else:  # the gate must match too
            needs.append((prefilter.requirements([rule.regex, *filter(None, [rule.gate])]),))
    return _Plan(tuple(needs), prefilter.Index([prefilter.any_of(n) for n in needs]))


def _match_clause(
    rule: ClauseRule, window: _Text, name: str, needs: _Needs, literals: prefilter.Literals | None
) -> tuple[int, int] | None:
    text = window.views[name].text
    held = window.scripts(name)
    latin_only = name not in ("base", "bare")  # folding leaves other scripts as they were
    latin_open: bool | None = None  # the Latin gate, searched once and only if needed
    for k, alternative in enumerate(rule.alternatives):
        script = rule.scripts[k] if rule.scripts else ""
        if script not in held or (latin_only and script):
            continue
        if literals is not None and not literals.holds(needs[k]):
            continue
        if not script:
            if latin_open is None:
                latin_open = rule.latin_gate is None or rule.latin_gate.search(text) is not None
            if not latin_open:
                continue
        first, rest = alternative[0], alternative[1:]
        clauses = window.clauses(name)
        starts = [c[0] for c in clauses]
        for m in first.finditer(text):
            clause = clauses[bisect.bisect_right(starts, m.start()) - 1]
            found = [part.search(text, clause[0], clause[1]) for part in rest]
            if all(found):
                parts = [(m.start(), m.end())] + [(f.start(), f.end()) for f in found if f]
                if mentioned(rule, window.base.text, [window.in_base(name, *p) for p in parts]):
                    continue  # a rule against it, an attack quoted as an example
                return clause[0], clause[1]
    return None


def _find(rule: Rule, row: int, window: _Text) -> tuple[str, int, int] | None:
    """The view and span of the first match of ``rule`` (RULES[row]) in any of its views, or
    None. A view that lacks the literals the rule needs is not searched (:mod:`.prefilter`)."""
    needs = _plan().needs[row]
    quoted = isinstance(rule, Pattern) and rule.skip_inline_code
    for name in window.views:
        if name not in rule.views:
            continue
        literals = window.literals(name, quoted=quoted)
        if literals is not None and not literals.possible(row):
            continue
        if isinstance(rule, ClauseRule):
            span = _match_clause(rule, window, name, needs, literals)
        else:
            if literals is not None and not literals.holds(needs[0]):
                continue
            text = window.unquoted(name) if rule.skip_inline_code else window.views[name].text
            if rule.gate is not None and rule.gate.search(text) is None:
                continue
            span = _match_pattern(rule, text, window, name)
        if span is not None:
            return name, span[0], span[1]
    return None


def _window_findings(
    window: _Text, scope: Scope, depth: int, exhaustive: bool
) -> Iterator[Finding]:
    for row, rule in enumerate(RULES):
        if scope not in rule.scopes:
            continue
        found = _find(rule, row, window)
        if found is None:
            continue
        name, start, end = found
        lo, hi = window.views[name].span(start, end)
        layer = "clause" if isinstance(rule, ClauseRule) else "pattern"
        yield Finding(
            rule.pattern_id,
            rule.category,
            rule.reason,
            excerpt(window.raw[lo:hi], redact=rule.category == "secret"),
            (window.offset + lo, window.offset + hi),
            layer,
        )
    at_text_start = window.offset == 0
    for kind, i in find_invisible(window.raw, at_text_start=at_text_start).items():
        yield Finding(
            kind,
            "invisible_unicode",
            INVISIBLE_REASONS[kind],
            excerpt(window.raw[max(0, i - 24) : i + 24]),
            (window.offset + i, window.offset + i + 1),
            "unicode",
        )
    if depth == 0 and scope != "rules":
        refused, _ = learned.verdict(window.raw)
        if refused:
            yield Finding(
                "learned_injection",
                "injection",
                "reads as a prompt injection to the learned classifier (prompt injection)",
                excerpt(window.raw),
                (window.offset, window.offset + len(window.raw)),
                "learned",
            )
    if depth >= MAX_DEPTH:
        return
    base = window.views["base"]
    for blob in decode.blobs(base.text):
        lo, hi = base.span(blob.start, blob.end)
        for inner in screen_text(blob.text, scope, depth=depth + 1, exhaustive=exhaustive):
            yield Finding(
                inner.pattern_id,
                inner.category,
                f"{inner.reason}, hidden in {blob.encoding}",
                inner.excerpt,
                (window.offset + lo, window.offset + hi),
                f"decoded:{blob.encoding}",
            )


def _windows(text: str) -> list[tuple[str, int]]:
    if len(text) <= HEAD_CHARS + TAIL_CHARS:
        return [(text, 0)]
    return [(text[:HEAD_CHARS], 0), (text[-TAIL_CHARS:], len(text) - TAIL_CHARS)]


def screen_text(
    text: str, scope: Scope, *, depth: int = 0, exhaustive: bool = False
) -> list[Finding]:
    """Every finding for ``text`` in ``scope``, one per rule id, in layer order.

    ``exhaustive`` runs every regex, ignoring the literal prefilters: the same findings,
    slower (the tests check that they are the same)."""
    found: dict[str, Finding] = {}
    for raw, offset in _windows(text):
        base = base_view(raw)
        views = {"base": base, **{v.name: v for v in extra_views(base)}}
        window = _Text(raw, offset, views, exhaustive=exhaustive)
        for finding in _window_findings(window, scope, depth, exhaustive):
            if finding.pattern_id not in found and not _covered(finding, found.values()):
                found[finding.pattern_id] = finding
    return list(found.values())


def _covered(finding: Finding, earlier: Iterable[Finding]) -> bool:
    """True if an earlier finding of the same category overlaps it: one thing caught by two
    rules is reported once, by the earlier row of the table."""
    start, end = finding.span
    return any(
        f.category == finding.category and f.span[0] < end and start < f.span[1] for f in earlier
    )


@dataclass(frozen=True)
class Assessment:
    """A screen's verdict with the learned layer's score: blocked, borderline or clean."""

    findings: list[Finding]
    score: float  # the learned layer's score, 0.0 when it is not installed

    @property
    def borderline(self) -> bool:
        """Not refused, but close enough that content from an untrusted source waits for
        review: the classifier's score is past its review threshold."""
        model = learned.load()
        return not self.findings and model is not None and self.score >= model.review


def assess(text: str, scope: Scope) -> Assessment:
    """:func:`screen_text` and the learned layer's score, for callers that weigh provenance."""
    model = learned.load()
    score = learned.score(model, text) if model is not None else 0.0
    return Assessment(screen_text(text, scope), score)


def first_reasons(findings: Sequence[Finding]) -> list[str]:
    """The distinct reasons, in order."""
    return list(dict.fromkeys(f.reason for f in findings))
