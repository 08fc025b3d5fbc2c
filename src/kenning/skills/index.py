"""The skills block of the system prompt: ``name: description`` lines, grouped by tag, in budget.

The model sees every skill it has — or, when they do not all fit the token
budget (``skills.index_budget_tokens``, default 1,500), the ones that matter
for this session, and a line saying how many more exist and how to reach
them (``skills_search`` / ``skill_view``). Hermes lists every skill and pays
~12k tokens a turn at 300; this block never exceeds its budget, at 3,000
skills or 30,000.

Invariants:
- Within budget: tokens are estimated with :func:`kenning.tokens.estimate_tokens`
  (the counter the context engine budgets the prompt with), summed per line
  as an upper bound, and the finished text is checked.
- Deterministic: the same skills, use counts, task text, budget and day give
  the same bytes, because the block is part of the frozen system prompt.
  Recency counts whole days, and every ordering ends in the skill's name.
- When everything fits, the order ignores the task (groups and names
  alphabetically), so sessions share a byte-identical prompt prefix. When it
  does not, skills are chosen and ordered by relevance to the task text
  (:mod:`.rank`) plus recent and frequent use; groups follow their best skill.
- Only active and stale skills are listed; archived and deleted ones stay
  findable by ``skills_search``. A description that fails the threat scan
  (a hand edit) is shown neutralised, never verbatim.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from kenning.safety import threats
from kenning.skills.catalog import SkillInfo
from kenning.skills.library import SkillLibrary
from kenning.skills.rank import Doc, scores
from kenning.skills.state import parse_iso
from kenning.tokens import estimate_tokens

__all__ = ["SkillsIndex", "build_index", "estimate_tokens", "render_index"]

DEFAULT_BUDGET = 1500
MAX_DESCRIPTION_IN_INDEX = 240  # chars; the full text is one skill_view away
UNTAGGED = "general"
_MAX_MISSES = 40
_MIN_LINE_TOKENS = 8

HEADER = (
    "## Skills\n"
    "Skills are your saved procedures for recurring tasks. When one matches the task, even "
    "partly, load it with skill_view(name) before you start, and follow it. When you find a "
    "better way, improve the skill with skill_manage.\n"
)
FOOTER = (
    "{omitted:,} more skills are not listed here (of {total:,}): find them with "
    "skills_search(query), or load one by name with skill_view(name).\n"
)
FOOTER_NONE = (
    "You have {total:,} skills; none is listed here. Find them with skills_search(query), "
    "or load one by name with skill_view(name).\n"
)

# How much use counts next to relevance (which is scaled to 0..1): a skill
# used today adds up to .3, one used often up to .1, so clear relevance to
# the task still wins over habit.
RECENCY_WEIGHT = 0.3
RECENCY_HALF_LIFE_DAYS = 14
FREQUENCY_WEIGHT = 0.1
FREQUENCY_SATURATION = 50


@dataclass(frozen=True)
class SkillsIndex:
    text: str  # "" when there are no skills (or the budget cannot hold the block)
    tokens: int
    shown: tuple[str, ...]  # names, in the order listed
    total: int  # active + stale skills
    budget: int

    @property
    def omitted(self) -> int:
        return self.total - len(self.shown)


def build_index(
    library: SkillLibrary,
    *,
    task: str = "",
    budget_tokens: int | None = None,
    now: datetime | None = None,
) -> SkillsIndex:
    """The block a new session of ``library`` gets, for ``task`` (default budget: config)."""
    budget = library.config.index_budget_tokens if budget_tokens is None else budget_tokens
    return render_index(
        library.list_skills(), task=task, budget_tokens=budget, now=now or library.clock()
    )


def render_index(
    infos: Sequence[SkillInfo], *, task: str, budget_tokens: int, now: datetime
) -> SkillsIndex:
    """The block for ``infos`` (pure: same arguments, same bytes)."""
    live = [i for i in infos if i.meta is not None and i.status in ("active", "stale")]
    if not live or budget_tokens <= 0:
        return SkillsIndex("", 0, (), len(live), budget_tokens)
    lines = _Lines()
    groups = {info.name: _group(info) for info in live}
    # A line costs at least its (capped) description's estimate less one (the
    # rounding the whole text's count no longer pays per line): skip rendering
    # all 3,000 lines (and scanning them) when they cannot possibly fit.
    cap = MAX_DESCRIPTION_IN_INDEX - 1
    if sum(estimate_tokens(i.description[:cap]) - 1 for i in live) <= budget_tokens:
        for info in live:
            lines.of(info)
        everything = _render(live, lines, groups, 0, len(live))
        if estimate_tokens(everything) <= budget_tokens:
            shown = tuple(_order_alphabetical(live, groups))
            return SkillsIndex(
                everything, estimate_tokens(everything), shown, len(live), budget_tokens
            )
    ranked = _rank(live, task, now)
    chosen = _fill(ranked, lines, groups, budget_tokens, len(live))
    text = _render(chosen, lines, groups, len(live) - len(chosen), len(live), by_rank=True)
    while estimate_tokens(text) > budget_tokens and chosen:  # unreachable by construction
        chosen = chosen[:-1]
        text = _render(chosen, lines, groups, len(live) - len(chosen), len(live), by_rank=True)
    if estimate_tokens(text) > budget_tokens:
        return SkillsIndex("", 0, (), len(live), budget_tokens)
    shown = tuple(_order_by_rank(chosen, groups))
    return SkillsIndex(text, estimate_tokens(text), shown, len(live), budget_tokens)


class _Lines(dict[str, str]):
    """Index lines by name, made (and threat-scanned) only for skills that are considered."""

    def of(self, info: SkillInfo) -> str:
        line = self.get(info.name)
        if line is None:
            line = self[info.name] = _line(info)
        return line


def _group(info: SkillInfo) -> str:
    tags = [t.strip().lower() for t in info.tags if t.strip()]
    return tags[0] if tags else UNTAGGED


def _line(info: SkillInfo) -> str:
    text = info.description
    if len(text) > MAX_DESCRIPTION_IN_INDEX:
        text = text[: MAX_DESCRIPTION_IN_INDEX - 1].rstrip() + "…"
    return f"- {info.name}: {threats.neutralise(text, 'script')}\n"


def _use_bonus(info: SkillInfo, now: datetime) -> float:
    if info.usage.count <= 0:
        return 0.0
    last = parse_iso(info.usage.last_used)
    days = max(0, (now.date() - last.date()).days) if last else 365
    recency = math.pow(0.5, days / RECENCY_HALF_LIFE_DAYS)
    frequency = min(1.0, math.log1p(info.usage.count) / math.log1p(FREQUENCY_SATURATION))
    return RECENCY_WEIGHT * recency + FREQUENCY_WEIGHT * frequency


def _rank(live: Sequence[SkillInfo], task: str, now: datetime) -> list[SkillInfo]:
    relevance = scores(task, [Doc(i.name, i.description, i.tags) for i in live]) if task else []
    best = max(relevance, default=0.0)
    keyed = []
    for n, info in enumerate(live):
        rel = relevance[n] / best if best > 0 else 0.0
        # Rounded so that float noise can never reorder two equal skills.
        keyed.append((-round(rel + _use_bonus(info, now), 9), info.name, info))
    keyed.sort(key=lambda k: (k[0], k[1]))
    return [info for _, _, info in keyed]


def _fill(
    ranked: Sequence[SkillInfo],
    lines: _Lines,
    groups: dict[str, str],
    budget: int,
    total: int,
) -> list[SkillInfo]:
    """Greedily take skills in rank order while the block stays within ``budget``."""
    used = estimate_tokens(HEADER) + estimate_tokens(FOOTER.format(omitted=total, total=total))
    used += estimate_tokens("<available_skills>\n</available_skills>\n")
    opened: set[str] = set()
    chosen = []
    misses = 0
    for info in ranked:
        cost = estimate_tokens(lines.of(info))
        group = groups[info.name]
        if group not in opened:
            cost += estimate_tokens(f"[{group}]\n")
        if used + cost > budget:
            # A shorter line further down may still fit, but the search for one
            # is bounded: past the best skills, filling crumbs is not worth it.
            misses += 1
            if misses >= _MAX_MISSES or budget - used < _MIN_LINE_TOKENS:
                break
            continue
        used += cost
        opened.add(group)
        chosen.append(info)
    return chosen


def _order_alphabetical(infos: Sequence[SkillInfo], groups: dict[str, str]) -> list[str]:
    return [i.name for i in sorted(infos, key=lambda i: (groups[i.name], i.name))]


def _order_by_rank(chosen: Sequence[SkillInfo], groups: dict[str, str]) -> list[str]:
    first_seen: dict[str, int] = {}
    for n, info in enumerate(chosen):
        first_seen.setdefault(groups[info.name], n)
    return [
        info.name
        for n, info in sorted(
            enumerate(chosen), key=lambda p: (first_seen[groups[p[1].name]], p[0])
        )
    ]


def _render(
    chosen: Sequence[SkillInfo],
    lines: _Lines,
    groups: dict[str, str],
    omitted: int,
    total: int,
    *,
    by_rank: bool = False,
) -> str:
    order = _order_by_rank(chosen, groups) if by_rank else _order_alphabetical(chosen, groups)
    if not order:  # not even one line fits: say that skills exist and how to reach them
        return HEADER + FOOTER_NONE.format(total=total)
    parts = [HEADER, "<available_skills>\n"]
    current = None
    for name in order:
        if groups[name] != current:
            current = groups[name]
            parts.append(f"[{current}]\n")
        parts.append(lines[name])
    parts.append("</available_skills>\n")
    if omitted:
        parts.append(FOOTER.format(omitted=omitted, total=total))
    return "".join(parts)
