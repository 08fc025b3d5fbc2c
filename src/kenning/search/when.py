"""What a query says about time: "now", "in March 2024", "before the move".

``read(query, now)`` returns a ``TimeIntent``:

- ``recent``: "what is X now / currently / lately / these days / at the
  moment / still", 现在 / 目前 / 最近 / 如今 / 近来 / 这几天 / 还…吗 (and the
  same words in German, French, Spanish and Japanese): the newest statements
  are preferred;
- ``range``: "in 2023", "in March 2024", "last year", "last month", "two
  years ago", "since May 2024", 2023年, 去年, 上个月, 三年前: messages dated
  inside ``[since, until)`` are preferred;
- ``before`` / ``after``: "before the move", "after I moved to Berlin",
  搬到柏林之后: ``anchor`` is the event, which the engine searches for; the
  date of its best hit becomes the boundary.

It is a preference, never a filter (``SearchFilters.since/until`` are the
hard scope): a wrong reading costs some ranking, never the answer. Calendar
boundaries are in local time, like journal days.

The time words stay search terms: in conversation they carry the event
("we went camping last year", "I moved from Sweden 4 years ago"). Taking
"now", "last year", "two years ago", 去年 out of the query's words cost
LoCoMo .004 mrr overall (mostly on the questions whose range held nothing
relevant, so ranking was otherwise unchanged) and won nothing on ``kenning
bench when``.

Why a table and not dateparser: its ``search_dates`` (1.5, measured on this
machine) takes 80-130 ms a query (3 s on the first), six times a whole
search, and on ordinary text it finds dates in "may I ask", "march on",
"now that you mention it", "a second opinion", "a sunday roast", and even
in "we" and "did" (both read as a date last week); it returns points, not
ranges, reads 2023年 as year 3, and says nothing of "now" or "before the
move". The table below is small, has one job, and takes microseconds.

``factor`` turns an intent into each candidate's score multiplier (the
weights are in ``fusion.RankParams``). Pure: no clock is read here (the
caller passes ``now``), nothing is stored.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import date, datetime, timedelta
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from kenning.search import fusion
from kenning.search.fusion import RankParams
from kenning.storage.text import query_terms

Intent = Literal["none", "recent", "range", "before", "after"]

_MONTHS = {
    name: number
    for number, names in enumerate(
        (
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ),
        1,
    )
    for name in names
}
_MONTH = "(?P<month>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_YEAR = r"(?P<year>(?:19|20)\d\d)"
_DAY = r"(?P<day>[12]\d|3[01]|0?[1-9])(?:st|nd|rd|th)?"
_NUMBERS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "a couple of": 2,
    "a few": 3,
    "couple of": 2,
    "few": 3,
}
_COUNT = "(?P<n>\\d{1,3}|" + "|".join(sorted(_NUMBERS, key=len, reverse=True)) + ")"
_UNIT = r"(?P<unit>day|week|month|year)s?"
_ZH_DIGITS = {"零": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5}
_ZH_DIGITS |= {"六": 6, "七": 7, "八": 8, "九": 9, "十": 10, "几": 3}
_ZH_COUNT = "(?P<n>\\d{1,3}|[零一二两三四五六七八九十几]{1,3})"
_ZH_UNIT = "(?P<unit>天|日|周|个星期|星期|个礼拜|礼拜|个月|月|年)"

# "Now" words: each means "as things stand", so the newest statement is the
# answer. "now that …" is a conjunction ("now that you mention it"), not a time.
_RECENT_EN = re.compile(
    r"\b(?:right now|now(?!\s+that\b)|nowadays|currently|current|these days|"
    r"at the moment|at present|presently|lately|recently|most recent|latest|"
    r"still|any ?more)\b",
    re.IGNORECASE,
)
_RECENT_OTHER = re.compile(
    r"\b(?:jetzt|derzeit|zurzeit|momentan|aktuell|inzwischen|"
    r"maintenant|actuellement|en ce moment|"
    r"ahora|actualmente|todavía|hoy en día)\b",
    re.IGNORECASE,
)
_RECENT_CJK = re.compile(
    "现在|目前|最近|如今|近来|近期|这几天|这些天|眼下|当前|现时|还[^，。？！,.?!]{1,12}?[吗么嘛]|"
    "現在|今は|最近|いまは"
)

# Before / after an event, or a date. The event runs to the end of its clause.
_EDGE_EN = re.compile(
    r"\b(?P<edge>before|after|since|until|till|prior to)\s+(?P<what>[^,;.?!]+)", re.IGNORECASE
)
_EDGE_ZH = re.compile(
    "(?:^|(?<=[，。？！,.?!\\s]))(?:在)?(?P<what>[^，。？！,.?!]{2,24}?)"
    "(?P<edge>之前|以前|之后|以后)"
)
_MODAL = re.compile(r"\b(?:would|could|should|might|will)\b", re.IGNORECASE)
# "till date", "until now", "since then": time words, not events to date.
_NOT_EVENTS = frozenset({"date", "now", "then", "today", "later", "ever", "yet", "recently"})
_OPENERS = frozenset({"since", "after", "before", "until", "till", "by"})
# An event ends where the question goes on ("after the move where did I live").
_EVENT_END = re.compile(
    r"\b(?:what|where|who|whom|when|why|how|which|did|do|does|is|are|was|were)\b", re.IGNORECASE
)
_EDGES: dict[str, Intent] = {
    "before": "before",
    "prior to": "before",
    "until": "before",
    "till": "before",
    "after": "after",
    "since": "after",
    "之前": "before",
    "以前": "before",
    "之后": "after",
    "以后": "after",
}


@dataclass(frozen=True)
class TimeIntent:
    """What a query asks of time; ``since``/``until`` are unix seconds, local calendar."""

    intent: Intent = "none"
    since: float | None = None
    until: float | None = None
    anchor: str | None = None  # before/after: the event, searched for its date
    phrase: str = ""  # the query's words that said it, as typed

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"intent": self.intent, "phrase": self.phrase}
        for key, value in (("since", self.since), ("until", self.until)):
            if value is not None:
                out[key] = datetime.fromtimestamp(value).astimezone().isoformat()
        if self.anchor is not None:
            out["anchor"] = self.anchor
        return out


@dataclass(frozen=True)
class _Span:
    start: int
    end: int
    since: datetime | None
    until: datetime | None


def _day(d: date) -> datetime:
    return datetime(d.year, d.month, d.day)


def _month(year: int, month: int) -> tuple[datetime, datetime]:
    nxt = datetime(year + month // 12, month % 12 + 1, 1)
    return datetime(year, month, 1), nxt


def _year(year: int) -> tuple[datetime, datetime]:
    return datetime(year, 1, 1), datetime(year + 1, 1, 1)


def _shift_months(when: datetime, months: int) -> datetime:
    index = when.year * 12 + when.month - 1 + months
    return datetime(index // 12, index % 12 + 1, 1)


def _count(text: str) -> int:
    text = text.lower()
    if text.isdigit():
        return int(text)
    if text in _NUMBERS:
        return _NUMBERS[text]
    # Chinese: 三, 十二, 二十, 两
    if "十" in text:
        tens, _, ones = text.partition("十")
        return _ZH_DIGITS.get(tens, 1) * 10 + _ZH_DIGITS.get(ones, 0)
    return sum(_ZH_DIGITS.get(c, 0) for c in text) or 1


def _ago(n: int, unit: str, today: datetime) -> tuple[datetime, datetime]:
    """The calendar unit n units back ("two years ago": that whole year)."""
    if unit in ("day", "天", "日"):
        start = today - timedelta(days=n)
        return start, start + timedelta(days=1)
    if unit in ("week", "周", "星期", "个星期", "礼拜", "个礼拜"):
        start = today - timedelta(days=today.weekday() + 7 * n)
        return start, start + timedelta(days=7)
    if unit in ("month", "个月", "月"):
        start = _shift_months(today, -n)
        return start, _shift_months(start, 1)
    return _year(today.year - n)


def _last_month_named(month: int, today: datetime, *, strictly: bool) -> tuple[datetime, datetime]:
    """The latest such month that has begun ("in March" in May: this March)."""
    year = (
        today.year
        if (month < today.month or (month == today.month and not strictly))
        else (today.year - 1)
    )
    return _month(year, month)


Resolve = Callable[[re.Match[str], datetime], tuple[datetime, datetime]]
Rule = tuple[re.Pattern[str], Resolve]


def _rules() -> list[Rule]:
    """(pattern, match -> [since, until)), most specific first: a span once
    taken is not read again by a later rule."""

    def full_date(m: re.Match[str], _: datetime) -> tuple[datetime, datetime]:
        start = datetime(int(m["year"]), _MONTHS[m["month"].lower()], int(m["day"]))
        return start, start + timedelta(days=1)

    def iso(m: re.Match[str], _: datetime) -> tuple[datetime, datetime]:
        if m["day"]:
            start = datetime(int(m["year"]), int(m["m"]), int(m["day"]))
            return start, start + timedelta(days=1)
        return _month(int(m["year"]), int(m["m"]))

    def month_year(m: re.Match[str], _: datetime) -> tuple[datetime, datetime]:
        return _month(int(m["year"]), _MONTHS[m["month"].lower()])

    def month_day(m: re.Match[str], today: datetime) -> tuple[datetime, datetime]:
        start, _ = _last_month_named(_MONTHS[m["month"].lower()], today, strictly=False)
        start = start.replace(day=int(m["day"]))  # "February 30": ValueError, skipped
        return start, start + timedelta(days=1)

    def named_month(m: re.Match[str], today: datetime) -> tuple[datetime, datetime]:
        strictly = (m["which"] or "").lower() == "last"
        return _last_month_named(_MONTHS[m["month"].lower()], today, strictly=strictly)

    def year(m: re.Match[str], _: datetime) -> tuple[datetime, datetime]:
        return _year(int(m["year"]))

    def ago(m: re.Match[str], today: datetime) -> tuple[datetime, datetime]:
        return _ago(_count(m["n"]), m["unit"].lower(), today)

    def past(m: re.Match[str], today: datetime) -> tuple[datetime, datetime]:
        n, unit = _count(m["n"] or "1"), m["unit"].lower()
        days = {"day": 1, "week": 7, "month": 30, "year": 365}[unit] * n
        return today - timedelta(days=days), today + timedelta(days=1)

    def relative(m: re.Match[str], today: datetime) -> tuple[datetime, datetime]:
        which, unit = m["which"].lower(), m["unit"].lower()
        back = 1 if which in ("last", "past", "previous") else 0
        if unit == "week":
            return _ago(back, "week", today)
        if unit == "month":
            return _ago(back, "month", today)
        return _year(today.year - back)

    def named_day(m: re.Match[str], today: datetime) -> tuple[datetime, datetime]:
        back = {"today": 0, "yesterday": 1, "今天": 0, "昨天": 1, "前天": 2}[m[0].lower()]
        return _ago(back, "day", today)

    def zh_date(m: re.Match[str], today: datetime) -> tuple[datetime, datetime]:
        y = int(m["year"]) if m["year"] else today.year
        if not m["m"]:
            return _year(y)
        if not m["year"]:
            start, _ = _last_month_named(int(m["m"]), today, strictly=False)
            y = start.year
        if m["day"]:
            start = datetime(y, int(m["m"]), int(m["day"]))
            return start, start + timedelta(days=1)
        return _month(y, int(m["m"]))

    def zh_relative(m: re.Match[str], today: datetime) -> tuple[datetime, datetime]:
        word = m[0]
        if word in ("去年", "前年", "今年"):
            return _year(today.year - {"去年": 1, "前年": 2, "今年": 0}[word])
        if word in ("上个月", "上月", "这个月", "本月"):
            return _ago(1 if word.startswith("上") else 0, "month", today)
        return _ago(1 if word.startswith("上") else 0, "week", today)

    def zh_ago(m: re.Match[str], today: datetime) -> tuple[datetime, datetime]:
        unit = m["unit"]
        if unit == "月" and not m["n"].isdigit() and _count(m["n"]) > 12:
            unit = "个月"
        return _ago(_count(m["n"]), unit, today)

    prep = r"(?:in|during|throughout|back in|of|from|to|through|since|before|after|until|till|by)"
    table: list[tuple[str, Resolve]] = [
        (rf"\b{_MONTH}\s+{_DAY},?\s+{_YEAR}\b", full_date),
        (rf"\b{_DAY}\s+(?:of\s+)?{_MONTH},?\s+{_YEAR}\b", full_date),
        (r"\b(?P<year>(?:19|20)\d\d)-(?P<m>0[1-9]|1[0-2])(?:-(?P<day>[0-3]\d))?\b", iso),
        (rf"\b{_MONTH},?\s+(?:of\s+)?{_YEAR}\b", month_year),
        (rf"\b(?:on\s+)?{_MONTH}\s+{_DAY}\b(?!\s*(?::|am\b|pm\b))", month_day),
        (
            rf"\b(?P<which>in|during|since|last|until|before|after|early|mid)[\s-]+{_MONTH}\b",
            named_month,
        ),
        (rf"\b{prep}\s+{_YEAR}\b", year),
        (rf"\b{_COUNT}\s+{_UNIT}\s+ago\b", ago),
        # "the last week of October" is October's, not this week
        (rf"\b(?:in\s+)?the\s+(?:past|last)\s+(?:{_COUNT}\s+)?{_UNIT}\b(?!\s+of\b)", past),
        (
            r"\b(?P<which>last|this|past|previous)\s+(?P<unit>week|month|year)\b(?!\s+of\b)",
            relative,
        ),
        (r"\b(?:today|yesterday)\b", named_day),
        (
            "(?:(?P<year>(?:19|20)\\d\\d)\\s*年)?"
            "(?:(?P<m>1[0-2]|0?[1-9])\\s*月(?:(?P<day>[12]\\d|3[01]|0?[1-9])\\s*[日号])?)?",
            zh_date,
        ),
        (
            "去年|前年|今年|上个月|上月|这个月|本月|上周|上个星期|上星期|上个礼拜|上礼拜|这周|本周|这个星期",
            zh_relative,
        ),
        ("今天|昨天|前天", named_day),
        (f"{_ZH_COUNT}\\s*{_ZH_UNIT}(?:之?前|以前)", zh_ago),
    ]
    return [(re.compile(pattern, re.IGNORECASE), resolve) for pattern, resolve in table]


_RULES = _rules()


def _spans(query: str, today: datetime) -> list[_Span]:
    taken = [False] * len(query)
    out: list[_Span] = []
    for pattern, resolve in _RULES:
        for m in pattern.finditer(query):
            if m.end() == m.start() or any(taken[m.start() : m.end()]):
                continue
            try:
                since, until = resolve(m, today)
            except (ValueError, OverflowError, KeyError):  # "February 30", year 0
                continue
            taken[m.start() : m.end()] = [True] * (m.end() - m.start())
            out.append(_Span(m.start(), m.end(), since, until))
    return sorted(out, key=lambda s: s.start)


def _edge(query: str) -> tuple[Intent, str, re.Match[str]] | None:
    """A before/after edge whose object is an event with a subject word
    ("after that", "since when" have none: no anchor)."""
    for pattern in (_EDGE_EN, _EDGE_ZH):
        for m in pattern.finditer(query):
            what = _EVENT_END.split(m["what"], maxsplit=1)[0].strip()
            if set(query_terms(what)) - _NOT_EVENTS:
                return _EDGES[m["edge"].lower()], what, m
    return None


def _said(edge: str, what: str) -> str:
    return f"{edge} {what}" if edge.isascii() else f"{what}{edge}"


def _stamp(when: datetime | None) -> float | None:
    return None if when is None else when.timestamp()


def read(query: str, now: float) -> TimeIntent:
    """The time intent of ``query`` at ``now`` (unix seconds)."""
    today = _day(datetime.fromtimestamp(now).date())
    spans = _spans(query, today)
    if spans:
        first = spans[0]
        since = min(s.since for s in spans if s.since is not None)
        until = max(s.until for s in spans if s.until is not None)
        phrase = query[first.start : spans[-1].end]
        # "since May 2024", "before 2023": an edge word opens the range. It is
        # the span's own first word ("before 2023") or the word before it.
        own = phrase.split()[0].lower() if phrase.split() else ""
        lead = query[max(0, first.start - 12) : first.start].lower().split()
        word = own if own in _OPENERS else (lead[-1] if lead else "")
        if word != own and word in _OPENERS:
            phrase = f"{word} {phrase}"
        bounds = {
            "since": (first.since, None),
            "after": (first.until, None),
            "before": (None, first.since),
        }.get(word, (None, until) if word in _OPENERS else (since, until))
        return TimeIntent("range", _stamp(bounds[0]), _stamp(bounds[1]), None, phrase)
    edge = _edge(query)
    if edge is not None:
        side, what, m = edge
        return TimeIntent(side, None, None, what, _said(m["edge"], what))
    recent = [
        m
        for pattern in (_RECENT_EN, _RECENT_OTHER, _RECENT_CJK)
        for m in pattern.finditer(query)
        if not _counterfactual(query, m)
    ]
    if recent:
        return TimeIntent("recent", phrase=", ".join(m[0] for m in recent))
    return TimeIntent()


def _counterfactual(query: str, m: re.Match[str]) -> bool:
    """ "Would she still want…", "could it still…": "still" under a modal asks
    what-if, not what is now (LoCoMo's one such question lost its answer)."""
    return m[0].lower() == "still" and _MODAL.search(query, 0, m.start()) is not None


def factor(
    intent: TimeIntent,
    stamps: npt.NDArray[np.float64],
    score: npt.NDArray[np.float64],
    now: float,
    params: RankParams,
    decays: npt.NDArray[np.bool_],
) -> tuple[npt.NDArray[np.float64], bool]:
    """Each item's time multiplier, and whether the intent shaped it (else plain recency)."""
    best = float(score.max(initial=0.0))
    if intent.intent == "recent" and params.time_recent_weight > 0:
        relevant = decays & (score >= params.time_recent_relevant * best)
        if relevant.any():
            newest = float(stamps[relevant].max())
            return fusion.recent_factor(stamps, newest, params, decays), True
    relevant = decays & (score >= params.time_range_relevant * best)
    bounded = intent.since is not None or intent.until is not None
    if bounded and params.time_range_weight > 0:
        lo = -np.inf if intent.since is None else intent.since
        hi = np.inf if intent.until is None else intent.until
        inside = relevant & (stamps >= lo) & (stamps < hi)
        # An event was found in this archive, so its edge always means
        # something; the query's words favour the event itself, which would
        # leave nothing relevant on the asked side (dev "before" hit@3 .67 -> .83).
        edge = intent.intent in ("before", "after")
        if inside.any() or edge:
            half = 0.0 if edge else params.time_range_half_life_days
            out = fusion.range_factor(stamps, intent.since, intent.until, half, params, decays)
            return out, True
    return fusion.recency_factor((now - stamps) / 86_400.0, params, decays), False


@dataclass
class Timing:
    """One search's time intent, and whether it shaped any score (else plain recency)."""

    intent: TimeIntent
    applied: bool = False

    def factor(
        self,
        stamps: npt.NDArray[np.float64],
        score: npt.NDArray[np.float64],
        now: float,
        params: RankParams,
        decays: npt.NDArray[np.bool_],
    ) -> npt.NDArray[np.float64]:
        out, shaped = factor(self.intent, stamps, score, now, params, decays)
        self.applied = self.applied or shaped
        return out

    def to_dict(self) -> dict[str, Any] | None:
        """What ``SearchResult.time`` shows; None when the query had no time words."""
        if self.intent.intent == "none":
            return None
        return self.intent.to_dict() | {"applied": self.applied}


def timing(
    query: str,
    now: float,
    params: RankParams,
    event_time: Callable[[str], float | None],
    notes: list[str],
) -> Timing:
    """The query's intent with its event dated: "before the move" asks
    ``event_time("the move")`` for the boundary. "After" runs from the event's
    own message (it often says the new state: "moved the DB to port 6543 after
    the migration"); "before" ends where the event's day begins: what was said
    that day, in that session, belongs with the event (held-out "before"
    queries 0 -> 2 of 6 against ending at the message; dev unchanged). No time
    weights: no intent at all."""
    if params.time_recent_weight <= 0 and params.time_range_weight <= 0:
        return Timing(TimeIntent())
    intent = read(query, now)
    if intent.anchor is None:
        return Timing(intent)
    at = event_time(intent.anchor)
    if at is None:
        notes.append(f"time: {intent.anchor!r} was not found, so it dates nothing")
        return Timing(TimeIntent())
    if intent.intent == "after":
        edge = replace(intent, since=at)
    else:  # what was said that day belongs with the event
        edge = replace(intent, until=_day(datetime.fromtimestamp(at).date()).timestamp())
    return Timing(edge)
