"""Compact: the middle of the conversation becomes a structured summary.

``plan`` splits the live entries into
- the head: everything before the first user message, that message and the
  first exchange (to the first final answer), kept while it fits its budget;
- the tail: the newest messages within a token budget, never fewer than a
  minimum count;
- the latest user message, pinned: kept verbatim even when it falls in the
  middle, so a long agentic turn never loses the ask it is working on (the
  failure behind "after compaction the agent returns to an old task");
- the middle: everything else, including the previous summary.

Every cut is a valid cut: no tool call is ever separated from its result.

``summarise`` asks the model for a summary with fixed sections, feeding it the
previous summary to update (never a summary of a summary taken blindly) and
the must-keep list the guard selected; the guard checks the draft, one retry
names what is missing, and the deterministic fallback carries the rest. A
middle too large for one request is summarised in chunks, each updating the
running summary. If the model fails outright, ``SummaryError`` is raised and
nothing is changed.

The stored summary is marked as reference material: the latest user message
wins, and details are one ``session_search`` away in the archive.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

from kenning.context import guard
from kenning.context.prune import describe_target, head_and_tail
from kenning.context.transcript import COMPACTION_KEY, Entry
from kenning.models.types import ChatMessage, Model, ModelSettings, Usage
from kenning.prompt import template

SUMMARY_OPEN = "[CONTEXT SUMMARY — REFERENCE ONLY]"
SUMMARY_CLOSE = "[END OF CONTEXT SUMMARY]"
# Before the notes a summary carries from outside the transcript: they describe
# the present (the kernel's variables), so the next summary is not fed them.
NOTES_MARK = "[NOW, OUTSIDE THE TRANSCRIPT]"
# How much of each message the summariser reads (the archive keeps the rest).
USER_CHARS = 4_000
ASSISTANT_CHARS = 3_000
RESULT_CHARS = 2_000
ARGUMENT_CHARS = 500
HEAD_SHARE = 0.10  # of the usable window, for the first exchange

GuardOutcome = Literal["accepted", "retried", "patched", "fallback"]


class SummaryError(RuntimeError):
    """The model could not produce a summary; nothing was changed."""


def is_summary(entry: Entry) -> bool:
    return bool(entry.meta) and isinstance((entry.meta or {}).get(COMPACTION_KEY), dict)


# -- planning -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Plan:
    head: list[Entry]
    middle: list[Entry]
    pinned: Entry | None
    tail: list[Entry]

    @property
    def empty(self) -> bool:
        """Nothing worth summarising: no plain message in the middle."""
        return not any(not is_summary(e) for e in self.middle)

    @property
    def previous(self) -> Entry | None:
        summaries = [e for e in self.middle if is_summary(e)]
        return summaries[-1] if summaries else None

    @property
    def replaced(self) -> list[Entry]:
        return [e for e in self.middle if not is_summary(e)]

    def kept(self, summary: Entry) -> list[Entry]:
        return [*self.head, summary, *([self.pinned] if self.pinned else []), *self.tail]


def valid_cuts(entries: Sequence[Entry]) -> list[bool]:
    """``cuts[i]``: True when splitting before index ``i`` keeps every call with its result."""
    n = len(entries)
    called: dict[str, int] = {}
    for i, entry in enumerate(entries):
        for call in entry.message.tool_calls:
            called[call.id] = i
    blocked = [0] * (n + 2)
    for j, entry in enumerate(entries):
        if entry.message.role == "tool" and entry.message.tool_call_id in called:
            i = called[entry.message.tool_call_id]
            low, high = min(i, j), max(i, j)
            blocked[low + 1] += 1  # cuts low+1 .. high split the pair
            blocked[high + 1] -= 1
    cuts, running = [], 0
    for i in range(n + 1):
        running += blocked[i]
        cuts.append(running == 0)
    return cuts


def plan(
    entries: Sequence[Entry],
    tokens: Callable[[Entry], int],
    *,
    tail_budget: int,
    tail_min: int,
    head_budget: int,
) -> Plan:
    """Split ``entries`` into head, middle, pinned ask and tail (see the module docstring)."""
    n = len(entries)
    cuts = valid_cuts(entries)
    h = _head_end(entries, cuts, tokens, head_budget)
    t, used = n, 0
    while t > h:
        cost = tokens(entries[t - 1])
        if n - t >= tail_min and used + cost > tail_budget:
            break
        used += cost
        t -= 1
    start = t
    while t > h and not cuts[t]:  # include the call whose result starts the tail
        t -= 1
    if t == h and start > h:  # the call reaches into the head: leave the pair to the middle
        t = start
        while t < n and not cuts[t]:
            t += 1
    latest = _latest_user(entries)
    pinned = entries[latest] if latest is not None and h <= latest < t else None
    middle = [e for e in entries[h:t] if e is not pinned]
    return Plan(list(entries[:h]), middle, pinned, list(entries[t:]))


def _head_end(
    entries: Sequence[Entry], cuts: list[bool], tokens: Callable[[Entry], int], budget: int
) -> int:
    first = next(
        (i for i, e in enumerate(entries) if e.message.role == "user" and not is_summary(e)), None
    )
    if first is None:
        return 0
    end = first + 1
    for i in range(first + 1, len(entries)):
        message = entries[i].message
        if message.role == "user":
            break
        if message.role == "assistant" and not message.tool_calls:
            end = i + 1
            break
    else:
        end = first + 1
    if not cuts[end] or sum(tokens(e) for e in entries[:end]) > budget:
        return first + 1  # the first exchange is too big (or unfinished): keep the ask alone
    return end


def _latest_user(entries: Sequence[Entry]) -> int | None:
    for i in range(len(entries) - 1, -1, -1):
        if entries[i].message.role == "user" and not is_summary(entries[i]):
            return i
    return None


# -- what must survive ----------------------------------------------------------------------


def requirements(
    plan_: Plan,
    *,
    previous_meta: dict[str, object] | None,
    max_identifiers: int,
    ignore: Sequence[str] = (),
) -> tuple[guard.Requirements, guard.Fallback]:
    """The guard's must-keep list for ``plan_`` and the parts of a fallback summary."""
    user_ids: list[str] = []
    other_ids: list[str] = []
    rules: list[str] = []
    asks: list[str] = []
    actions: list[str] = []
    files: list[str] = []
    previous_rules, previous_ids, previous_asks = _from_meta(previous_meta)
    for entry in plan_.replaced:
        message = entry.message
        found = guard.conversation_identifiers(message)
        (user_ids if message.role == "user" else other_ids).extend(found)
        if message.role == "user":
            rules.extend(guard.rule_statements(message.content))
            asks.append(message.content.strip()[: guard.ASK_CHARS])
        for call in message.tool_calls:
            actions.append(f"{call.name}({describe_target(call)}) (#{entry.seq})")
        files.extend(i for i in found if guard.is_path(i))
    # The pinned ask is the latest user message; without one, it is in the tail or the head.
    everything = [*plan_.head, *plan_.middle, *_pinned(plan_), *plan_.tail]
    latest_index = _latest_user(everything)
    latest = everything[latest_index].message.content.strip() if latest_index is not None else ""
    skip = set(ignore)
    identifiers = [
        i
        for i in guard.prioritised([previous_ids, user_ids, other_ids], max_identifiers)
        if i not in skip
    ]
    needs = guard.Requirements(
        identifiers=identifiers,
        rules=list(dict.fromkeys([*previous_rules, *rules])),
        latest_ask=latest[: guard.ASK_CHARS],
        asks=list(dict.fromkeys([*previous_asks, *asks]))[-5:],
    )
    first_ask = next((e.message.content for e in plan_.head if e.message.role == "user"), "")
    parts = guard.Fallback(
        goal=first_ask.strip()[: guard.ASK_CHARS],
        actions=tuple(actions),
        files=tuple(dict.fromkeys(files)),
        previous=summary_body(plan_.previous.message.content) if plan_.previous else "",
    )
    return needs, parts


def _pinned(plan_: Plan) -> list[Entry]:
    return [plan_.pinned] if plan_.pinned else []


def _from_meta(meta: dict[str, object] | None) -> tuple[list[str], list[str], list[str]]:
    def strings(key: str) -> list[str]:
        value = (meta or {}).get(key)
        return [str(v) for v in value] if isinstance(value, list) else []

    return strings("rules"), strings("identifiers"), strings("asks")


# -- the model's part -----------------------------------------------------------------------


def instructions(max_tokens: int) -> str:
    text = template("context_summary.md")
    return text.replace("{max_tokens}", f"{max_tokens:,}")


def render(entry: Entry) -> str:
    """One message as the summariser reads it."""
    message = entry.message
    if message.role == "tool":
        body = head_and_tail(message.content, RESULT_CHARS // 2, RESULT_CHARS // 2, "archive")
        return f"[#{entry.seq} result of {message.name or 'tool'}]\n{body}"
    limit = USER_CHARS if message.role == "user" else ASSISTANT_CHARS
    lines = [f"[#{entry.seq} {message.role}]"]
    if message.content:
        lines.append(head_and_tail(message.content, limit // 2, limit // 2, "archive"))
    for call in message.tool_calls:
        args = call.arguments
        if len(args) > ARGUMENT_CHARS:
            args = args[:ARGUMENT_CHARS] + f"… ({len(call.arguments):,} chars)"
        lines.append(f"  → {call.name} {args}")
    return "\n".join(lines)


def summary_body(text: str) -> str:
    """A stored summary without its reference-only frame."""
    body = text
    if SUMMARY_OPEN in body:
        body = body.split(SUMMARY_OPEN, 1)[1]
        body = body.split("\n\n", 1)[1] if "\n\n" in body else body
    return body.split(SUMMARY_CLOSE, 1)[0].split(NOTES_MARK, 1)[0].strip()


def framed(
    body: str, *, first_seq: int, last_seq: int, cycle: int, notes: Sequence[str] = ()
) -> str:
    """The summary as the model sees it: reference material, with where the details are.

    ``notes`` (facts from outside the transcript, such as the variables a Python
    kernel keeps) go after the body, inside the frame."""
    kept = [note.strip() for note in notes if note.strip()]
    extra = f"\n\n{NOTES_MARK}\n" + "\n\n".join(kept) if kept else ""
    return (
        f"{SUMMARY_OPEN}\n"
        f"Messages #{first_seq}–#{last_seq} of this session were compacted into this summary "
        f"(compaction {cycle}). It is background for the work, not a new request: where it "
        "disagrees with a later message, the latest user message wins, and your memory files "
        "are authoritative. Every original message stays in the archive: use session_search "
        "for exact details (commands, outputs, wording).\n\n"
        f"{body.strip()}{extra}\n"
        f"{SUMMARY_CLOSE}"
    )


def request_text(
    previous: str, chunk: Sequence[Entry], needs: guard.Requirements, *, correction: str = ""
) -> str:
    parts: list[str] = []
    if previous.strip():
        parts.append(f"<previous-summary>\n{previous.strip()}\n</previous-summary>")
    if chunk:
        span = f'from="#{chunk[0].seq}" to="#{chunk[-1].seq}"'
        rendered = "\n\n".join(render(e) for e in chunk)
        parts.append(f"<messages {span}>\n{rendered}\n</messages>")
    keep: list[str] = []
    if needs.identifiers:
        listed = "\n".join(f"- {i}" for i in needs.identifiers)
        keep.append(f"Exact identifiers ({len(needs.identifiers)}), copy each verbatim:\n{listed}")
    if needs.rules:
        keep.append("User rules to keep:\n" + "\n".join(f"- {r}" for r in needs.rules))
    if needs.latest_ask:
        keep.append(
            f"Latest user ask (quote it verbatim under Pending user asks):\n{needs.latest_ask}"
        )
    if keep:
        parts.append("<must-keep>\n" + "\n\n".join(keep) + "\n</must-keep>")
    if correction:
        parts.append(f"<correction>\n{correction}\n</correction>")
    parts.append("Write the updated summary now, with the sections in order.")
    return "\n\n".join(parts)


def chunks(entries: Sequence[Entry], cost: Callable[[str], int], budget: int) -> list[list[Entry]]:
    """``entries`` in consecutive groups whose rendering fits ``budget`` tokens each."""
    groups: list[list[Entry]] = [[]]
    used = 0
    for entry in entries:
        size = cost(render(entry))
        if groups[-1] and used + size > budget:
            groups.append([])
            used = 0
        groups[-1].append(entry)
        used += size
    return [g for g in groups if g]


@dataclass
class ModelCalls:
    """The summariser's requests: counted, timed and summed, for the report."""

    model: Model
    settings: ModelSettings
    requests: int = 0
    seconds: float = 0.0
    usage: Usage = field(default_factory=Usage)

    async def ask(self, system: str, text: str) -> str:
        started = time.perf_counter()
        self.requests += 1
        try:
            response = await self.model.request(
                [ChatMessage.system(system), ChatMessage.user(text)], settings=self.settings
            )
        finally:
            self.seconds += time.perf_counter() - started
        self.usage = self.usage + response.usage
        return summary_body(response.message.content)


@dataclass(frozen=True)
class Summary:
    body: str
    outcome: GuardOutcome
    verdict: guard.Verdict  # of the first draft: what the guard caught


async def summarise(
    calls: ModelCalls,
    plan_: Plan,
    needs: guard.Requirements,
    parts: guard.Fallback,
    *,
    max_tokens: int,
    input_budget: int,
    cost: Callable[[str], int],
) -> Summary:
    """The summary of ``plan_``'s middle, checked by the guard (see the module docstring)."""
    system = instructions(max_tokens)
    running = parts.previous
    groups = chunks(plan_.replaced, cost, input_budget)
    try:
        for group in groups:
            running = await calls.ask(system, request_text(running, group, needs))
    except Exception as exc:  # any failure of the model: keep everything, cool down
        raise SummaryError(f"{type(exc).__name__}: {exc}") from exc
    first = _verdict(running, needs, max_tokens, cost)
    if first.ok:
        return Summary(running, "accepted", first)
    draft = running
    # The retry sees its own draft and the missing items named; with no usable
    # draft it reads the (last) messages again.
    again = [] if draft.strip() else (groups[-1] if groups else [])
    text = request_text(
        draft if draft.strip() else parts.previous,
        again,
        needs,
        correction=first.describe(needs.latest_ask),
    )
    try:
        retry = await calls.ask(system, text)
    except Exception:
        retry = ""  # the first draft is still there to patch
    second = _verdict(retry, needs, max_tokens, cost)
    if second.ok:
        return Summary(retry, "retried", first)
    best = retry if retry.strip() and _score(second) <= _score(first) else draft
    if best.strip() and cost(best) <= 2 * max_tokens:
        return Summary(guard.fallback_summary(needs, parts, best), "patched", first)
    return Summary(guard.fallback_summary(needs, parts), "fallback", first)


def _verdict(
    text: str, needs: guard.Requirements, max_tokens: int, cost: Callable[[str], int]
) -> guard.Verdict:
    verdict = guard.check(text, needs)
    if text.strip() and cost(text) > 2 * max_tokens:
        return replace(verdict, too_long=True)
    return verdict


def _score(verdict: guard.Verdict) -> int:
    return (
        len(verdict.missing_identifiers)
        + len(verdict.missing_rules)
        + int(verdict.ask_missing)
        + 1000 * int(verdict.empty or verdict.too_long)
    )
