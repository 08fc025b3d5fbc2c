"""The guard: a summary is accepted only if it kept what must not be lost.

What must survive a compaction is selected by rules, not by the model:
- exact identifiers the conversation used — in user and assistant messages and
  in short tool-call arguments (not in tool output: that stays one search
  away in the archive): hex strings of 8+ characters, UUIDs, paths and file
  names, URLs, e-mail addresses, ticket keys, long numbers, versions and IP
  addresses, code names (CONSTANT_NAMES, snake_case, camelCase,
  PascalCaseOfThreeHumps), and quoted names (`backticks`, "name-like
  tokens", 「…」);
- the user's standing rules: user messages with a directive cue ("always",
  "never", "from now on", 不要, 必须, 以后 …);
- the latest user ask.

``check`` says what a summary is missing; the compactor retries once naming
the missing items, then falls back to ``fallback_summary``, which needs no
model and carries every identifier, every rule and the recent asks verbatim.
``Cooldown`` spaces out retries after a summary failed outright (60 → 300 →
900 s by default) on an injectable clock.

Invariants: extraction is deterministic and order-preserving; an identifier
is "present" only as the exact string; the fallback never drops a required
identifier or rule.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from kenning.models.types import ChatMessage

_URL = re.compile(r"\b(?:https?|ftp|ssh|git|s3|file)://[^\s<>\"'`)\]}]+", re.IGNORECASE)
_EMAIL = re.compile(r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b")
_UUID = re.compile(r"\b[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}\b")
_HEX = re.compile(r"\b(?:0x)?[0-9a-fA-F]{8,}\b")
_WIN_PATH = re.compile(r"\b[A-Za-z]:\\[^\s\"'<>|]+")
_PATH = re.compile(r"(?<![\w/:.@~-])(?:~|\.{1,2})?/?[\w.@+-]+(?:/[\w.@+-]+)+/?")
_FILENAME = re.compile(
    r"\b[\w-]+(?:\.[\w-]+)*\.(?:py|pyi|md|rst|txt|json|jsonl|toml|yaml|yml|js|mjs|ts|tsx|jsx"
    r"|rs|go|java|kt|c|h|cc|cpp|hpp|cs|rb|php|sh|bash|zsh|sql|html|css|scss|csv|tsv|ini|cfg"
    r"|conf|lock|log|xml|ipynb|env|db|sqlite|tf|proto|gradle|swift|lua|r|pdf|png|jpg|svg)\b"
)
_TICKET = re.compile(r"\b[A-Z][A-Z0-9]{1,9}(?:-\d+)+\b")
_ISSUE = re.compile(r"(?<![\w&])#\d{3,}\b")
_LONG_NUMBER = re.compile(r"(?<![\w.,])(?:\d{5,}|\d{1,3}(?:,\d{3}){2,})(?![\w])")
_VERSION = re.compile(r"(?<![\w.])[vV]?\d+(?:\.\d+){2,}(?![\w])")
_CONSTANT = re.compile(r"\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b")
_SNAKE = re.compile(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b")
# camelCase, and PascalCase of three humps or more ("OrderSyncWorker", not "GitHub")
_CAMEL = re.compile(
    r"\b(?:[a-z][a-z0-9]*(?:[A-Z][a-z0-9]+)+|[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]+){2,})\b"
)
_BACKTICK = re.compile(r"`([^`\n]{2,80})`")
_QUOTED = re.compile(r"(?<![\w])[\"“'‘]([^\"”'’\s]{2,60})[\"”'’](?![\w])")
_CJK_QUOTED = re.compile(r"[「『]([^」』\n]{1,30})[」』]")
_NAME_LIKE = re.compile(r"[_\-./\d]|[a-z][A-Z]")
_TRAILING = ".,;:!?)]}>'\"。，；：！？）"
_KEYS_TAKEN_WHOLE = frozenset(
    {"path", "file", "file_path", "url", "branch", "ref", "id", "session_id", "target"}
)
ARGUMENT_CHARS = 300  # longer argument values (file contents) are not scanned

_RULE_CUES = re.compile(
    r"\b(?:always|never|don't|do not|must|mustn't|from now on|make sure|only ever|"
    r"going forward|remember to|stop (?:doing|using)|no more|prefer|avoid)\b"
    r"|总是|永远|不要|别再|必须|务必|一律|以后|今后|始终|禁止|记住|只用|不许|请勿|不准",
    re.IGNORECASE,
)
RULE_CHARS = 400
ASK_CHARS = 1_000
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_'-]{3,}|[0-9]{2,}")
_CJK_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]+")
REFLECTED_SHARE = 0.6


def extract_identifiers(text: str) -> list[str]:
    """Identifiers in ``text`` in order of appearance, each once."""
    found: list[str] = []
    rest = text

    def take(pattern: re.Pattern[str], group: int = 0, keep: bool = False) -> None:
        nonlocal rest
        spans: list[tuple[int, int]] = []
        for match in pattern.finditer(rest):
            value = match.group(group) if group else match.group(0).rstrip(_TRAILING)
            if _accept(pattern, value):
                found.append(value)
                spans.append(match.span())
        if not keep:  # blank out what was taken so smaller patterns do not split it
            for start, end in spans:
                rest = rest[:start] + " " * (end - start) + rest[end:]

    take(_BACKTICK, 1, keep=True)
    take(_CJK_QUOTED, 1, keep=True)
    take(_URL)
    take(_EMAIL)
    take(_UUID)
    take(_WIN_PATH)
    take(_PATH)
    take(_FILENAME)
    take(_TICKET)
    take(_ISSUE)
    take(_VERSION)
    take(_HEX)
    take(_LONG_NUMBER)
    take(_CONSTANT)
    take(_SNAKE)
    take(_CAMEL)
    take(_QUOTED, 1)
    positions = {value: text.find(value) for value in found}
    return _without_contained(sorted(dict.fromkeys(found), key=lambda v: positions[v]))


def _accept(pattern: re.Pattern[str], value: str) -> bool:
    if len(value) < 2:
        return False
    if pattern is _PATH:
        if not re.search(r"[A-Za-z]", value):
            return False  # dates and fractions
        leading = value.startswith(("/", "~", "."))
        has_extension = re.search(r"\.[A-Za-z0-9]{1,8}/?$", value) is not None
        return leading or has_extension or value.count("/") >= 2
    if pattern is _HEX:
        digits = any(c.isdigit() for c in value)
        letters = any(c.isalpha() for c in value.removeprefix("0x"))
        return (digits and letters) or len(value) >= 16
    if pattern is _QUOTED:
        return _NAME_LIKE.search(value) is not None or len(value) >= 12
    return True


def _without_contained(values: list[str]) -> list[str]:
    """Drop values that are part of a longer value (carrying the long one carries both)."""
    return [v for v in values if not any(v != other and v in other for other in values)]


def conversation_identifiers(message: ChatMessage) -> list[str]:
    """Identifiers a user or assistant message used (content and short tool arguments)."""
    if message.role not in ("user", "assistant"):
        return []
    found = extract_identifiers(message.content)
    for call in message.tool_calls:
        found.extend(_argument_identifiers(call.arguments))
    return list(dict.fromkeys(found))


def _argument_identifiers(arguments: str) -> list[str]:
    try:
        data = json.loads(arguments or "{}")
    except json.JSONDecodeError:
        return extract_identifiers(arguments[:ARGUMENT_CHARS])
    found: list[str] = []
    for key, value in _string_values(data):
        if len(value) > ARGUMENT_CHARS:
            continue
        if key in _KEYS_TAKEN_WHOLE and "\n" not in value and value.strip():
            found.append(value.strip())
        found.extend(extract_identifiers(value))
    return found


def _string_values(data: object, key: str = "") -> Iterable[tuple[str, str]]:
    if isinstance(data, str):
        yield key, data
    elif isinstance(data, dict):
        for k, v in data.items():
            yield from _string_values(v, str(k))
    elif isinstance(data, list):
        for item in data:
            yield from _string_values(item, key)


def is_path(value: str) -> bool:
    """Whether an identifier names a file or directory (for "Relevant files")."""
    if "://" in value or "@" in value:
        return False
    return "/" in value or "\\" in value or _FILENAME.fullmatch(value) is not None


def is_rule(text: str) -> bool:
    return _RULE_CUES.search(text) is not None


def rule_statements(text: str) -> list[str]:
    """The directive parts of a user message, verbatim (the whole message if short)."""
    if not is_rule(text):
        return []
    flat = text.strip()
    if len(flat) <= RULE_CHARS:
        return [flat]
    sentences = re.split(r"(?<=[.!?。！？])\s+|\n+", flat)
    return [s.strip()[:RULE_CHARS] for s in sentences if s.strip() and is_rule(s)]


def _normalise(text: str) -> str:
    return " ".join(text.split()).lower()


def _terms(text: str) -> set[str]:
    terms = {w.lower() for w in _WORD.findall(text)}
    for run in _CJK_RUN.findall(text):
        terms.update(run[i : i + 2] for i in range(max(1, len(run) - 1)))
    return terms


def reflected(text: str, summary: str, share: float = REFLECTED_SHARE) -> bool:
    """Whether ``summary`` carries ``text``: verbatim, or most of its distinctive terms."""
    wanted = _normalise(text)[:300]
    haystack = _normalise(summary)
    if not wanted or wanted in haystack:
        return True
    terms = _terms(text)
    if not terms:
        return False
    have = _terms(summary)
    return len(terms & have) / len(terms) >= share


@dataclass
class Requirements:
    """What a summary of one compaction must carry."""

    identifiers: list[str] = field(default_factory=list)
    rules: list[str] = field(default_factory=list)
    latest_ask: str = ""
    asks: list[str] = field(default_factory=list)  # recent user asks, oldest first


@dataclass(frozen=True)
class Verdict:
    missing_identifiers: tuple[str, ...] = ()
    missing_rules: tuple[str, ...] = ()
    ask_missing: bool = False
    empty: bool = False
    too_long: bool = False

    @property
    def ok(self) -> bool:
        return not (
            self.missing_identifiers
            or self.missing_rules
            or self.ask_missing
            or self.empty
            or self.too_long
        )

    def describe(self, latest_ask: str) -> str:
        """The missing items, named, for the retry request."""
        parts: list[str] = []
        if self.empty:
            parts.append("The summary was empty or had no content.")
        if self.missing_identifiers:
            listed = "\n".join(f"- {i}" for i in self.missing_identifiers)
            parts.append(f"These exact identifiers are missing; copy each verbatim:\n{listed}")
        if self.missing_rules:
            listed = "\n".join(f"- {r}" for r in self.missing_rules)
            parts.append(f"These user rules are missing; keep each one:\n{listed}")
        if self.ask_missing:
            parts.append(f"The latest user ask is missing; quote it verbatim:\n{latest_ask}")
        if self.too_long:
            parts.append("The summary is too long: shorten the prose, keep every listed item.")
        return "\n\n".join(parts)


def check(summary: str, needs: Requirements) -> Verdict:
    """What ``summary`` is missing of ``needs`` (nothing: ``Verdict().ok``)."""
    if not summary.strip():
        return Verdict(empty=True)
    return Verdict(
        missing_identifiers=tuple(i for i in needs.identifiers if i not in summary),
        missing_rules=tuple(r for r in needs.rules if not reflected(r, summary)),
        ask_missing=bool(needs.latest_ask) and not reflected(needs.latest_ask, summary),
    )


def prioritised(groups: Sequence[Sequence[str]], limit: int) -> list[str]:
    """Unique identifiers from ``groups`` (most important group first), at most ``limit``.

    Within a group the newest are kept when something must go; the result
    keeps each group's own order.
    """
    kept: list[str] = []
    seen: set[str] = set()
    for group in groups:
        fresh = [i for i in dict.fromkeys(group) if i not in seen]
        room = max(0, limit - len(kept))
        chosen = fresh[len(fresh) - room :] if room < len(fresh) else fresh
        kept.extend(chosen)
        seen.update(chosen)
    return _without_contained(kept)


@dataclass(frozen=True)
class Fallback:
    """The parts of a deterministic summary the compactor collected."""

    goal: str = ""
    actions: tuple[str, ...] = ()  # "read_file(path=…) → ok (#12)"
    files: tuple[str, ...] = ()
    previous: str = ""  # the previous summary's body, if any


def fallback_summary(needs: Requirements, parts: Fallback, draft: str = "") -> str:
    """A summary built without a model, or ``draft`` with what it missed appended.

    Either way it carries every required identifier and rule and the latest
    ask verbatim.
    """
    if draft.strip():
        verdict = check(draft, needs)
        extra = _verbatim_sections(
            verdict.missing_rules,
            needs.latest_ask if verdict.ask_missing else "",
            (),
            verdict.missing_identifiers,
        )
        if not extra:
            return draft.strip()
        return f"{draft.strip()}\n\n## Carried verbatim (the summary above missed these)\n{extra}"
    sections = [
        "## Goal",
        parts.goal or "(see the user asks below)",
        "",
        _verbatim_sections(needs.rules, needs.latest_ask, needs.asks, needs.identifiers),
    ]
    if parts.actions:
        sections += ["## Completed actions", *(f"- {a}" for a in parts.actions[-40:]), ""]
    if parts.files:
        sections += ["## Relevant files", *(f"- {f}" for f in parts.files[-40:]), ""]
    if parts.previous.strip():
        sections += ["## Earlier summary (kept as it was)", parts.previous.strip(), ""]
    return "\n".join(sections).strip()


def _verbatim_sections(
    rules: Sequence[str], latest_ask: str, asks: Sequence[str], identifiers: Sequence[str]
) -> str:
    lines: list[str] = []
    if rules:
        lines += ["## Constraints and user rules (verbatim)", *(f"- {r}" for r in rules), ""]
    earlier = [a for a in asks if a != latest_ask]
    if latest_ask or earlier:
        lines.append("## Pending user asks")
        lines += [f"- {a}" for a in earlier]
        if latest_ask:
            lines.append(f"- Latest, verbatim: {latest_ask}")
        lines.append("")
    if identifiers:
        lines += ["## Exact identifiers", *(f"- {i}" for i in identifiers), ""]
    return "\n".join(lines).strip()


@dataclass
class Cooldown:
    """Waits between failed summaries: ``base``, then ``factor`` times longer, up to ``maximum``."""

    base: float = 60.0
    maximum: float = 900.0
    factor: float = 5.0
    failures: int = 0
    until: float = 0.0

    def ready(self, now: float) -> bool:
        return now >= self.until

    def remaining(self, now: float) -> float:
        return max(0.0, self.until - now)

    def fail(self, now: float) -> float:
        """Record a failure at ``now``; returns how long the next try waits."""
        self.failures += 1
        delay = min(self.maximum, self.base * self.factor ** (self.failures - 1))
        self.until = now + delay
        return delay

    def succeed(self) -> None:
        self.failures = 0
        self.until = 0.0
