"""``ContextEngine``: every stage of the context engine behind one object.

Before each model request the loop asks ``prepare(session)`` for the messages
to send. The engine measures the session (API usage where the provider gave
it, the estimate elsewhere), prunes old tool results in the view, runs the
silent flush once shortly before compaction, compacts when the view passes
``compact_at``, and attaches a budget note when usage passes a warning level.
A provider's context-overflow error takes the same path (``handle_overflow``:
flush included) and the loop retries the request once. ``compact`` is the
same path by hand (``/compact``, ``kenning sessions compact``).

After a compaction: the replaced messages are flagged in the archive (still
searchable), the summary is stored where ``--resume`` puts it back in place,
the system prompt is rebuilt — hot-memory snapshot, skills index and journal
reloaded — and stored in the session's meta, and the session goes on under
the same id.

Invariants:
- the frozen system prompt changes only at a compaction;
- the archive changes only by appending (flush and summary messages) and by
  flags, in one transaction per compaction; a failed summary changes nothing
  and automatic retries cool down (60 → 300 → 900 s on an injectable clock);
- the engine's own state per session (cycle, flush done, notes, cooldown,
  calibration, caches) is rebuilt from the archive after a resume.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from kenning.archive.store import Message
from kenning.config import ContextConfig
from kenning.context import compact as compacting
from kenning.context.budget import Budget, attach_note, budget_for, level_passed, status_note
from kenning.context.flush import FlushResult, run_flush
from kenning.context.guard import Cooldown
from kenning.context.prune import Stage, prune
from kenning.context.report import CompactionReport, ContextStatus
from kenning.context.session import ContextSession
from kenning.context.tokens import (
    MESSAGE_OVERHEAD,
    Calibration,
    EstimatingCounter,
    TokenCounter,
    message_tokens,
    tools_tokens,
)
from kenning.context.transcript import COMPACTION_KEY, Entry
from kenning.models.types import ChatMessage, Model
from kenning.prompt.system import build_system_prompt, skills_block

if TYPE_CHECKING:
    from kenning.home import Home

Level = Literal["info", "warning", "error"]
PromptBuilder = Callable[[ContextSession], str]
CompactionHook = Callable[[ContextSession, CompactionReport], None]
S = TypeVar("S", bound=ContextSession)
log = logging.getLogger(__name__)
# An automatic compaction that would replace less than this share of the
# usable window is not worth a summary request (and would thrash).
MIN_MIDDLE_SHARE = 0.05
FLUSH_VIEW_SHARE = 0.9  # the flush request must fit even when the context overflowed
OVERFLOW_TAIL_MIN = 4
SUMMARY_MIN_TOKENS = 500


@dataclass
class _View:
    messages: list[ChatMessage]  # without the system prompt
    tokens: int  # as sent (pruned, notes attached), calibrated
    unpruned: int
    raw: int  # uncalibrated estimate of what is sent, for calibration
    stage: Stage
    share: float


@dataclass
class _State:
    cycle: int = 0
    flushed: bool = False
    flush_saved: int = 0
    warned: float = 0.0
    notes: dict[int, str] = field(default_factory=dict)  # seq -> budget note on that message
    cooldown: Cooldown = field(default_factory=Cooldown)
    calibration: Calibration = field(default_factory=Calibration)
    raw: dict[int, int] = field(default_factory=dict)  # seq -> estimate
    pruned: dict[tuple[int, Stage], str] = field(default_factory=dict)  # (seq, stage) -> text
    pruned_raw: dict[str, int] = field(default_factory=dict)  # pruned text -> estimate
    ids: dict[int, int] = field(default_factory=dict)  # seq -> archive id
    system: tuple[str, int] = ("", 0)
    tools: tuple[tuple[str, ...], int] = ((), 0)
    sent_raw: int = 0
    usage_mark: int = 0
    # After a compaction that could not get under compact_at, automatic
    # compaction waits until the view has grown past this (no thrashing).
    floor: int = 0
    notices: list[tuple[str, Level]] = field(default_factory=list)


class ContextEngine:
    def __init__(
        self,
        config: ContextConfig | None = None,
        *,
        max_output_tokens: int = 8192,
        counter: TokenCounter | None = None,
        clock: Callable[[], float] = time.monotonic,
        summariser: Model | None = None,
        prompt_builder: PromptBuilder | None = None,
        on_compaction: CompactionHook | None = None,
    ) -> None:
        """``summariser`` writes summaries (default: the session's model);
        ``prompt_builder`` rebuilds the system prompt after a compaction
        (default: the standard prompt with memory, skills and journal reloaded);
        ``on_compaction`` sees every compaction attempt's report."""
        self.config = config or ContextConfig()
        self.max_output_tokens = max_output_tokens
        self.counter: TokenCounter = counter or EstimatingCounter()
        self.clock = clock
        self.summariser = summariser
        self.prompt_builder = prompt_builder or default_prompt
        self.on_compaction = on_compaction
        # Each gives text the summary carries after its body: what outlives the
        # compaction outside the transcript (the Python workspace's variables).
        self.summary_notes: list[Callable[[ContextSession], str]] = []
        self._states: dict[str, _State] = {}

    @classmethod
    def from_home(cls, home: Home, **options: Any) -> ContextEngine:
        return cls(
            home.config.context, max_output_tokens=home.config.model.max_output_tokens, **options
        )

    def attach(self, session: S) -> S:
        """Make ``session`` send what ``prepare`` returns and recover from overflows here."""
        session.use_context(self)
        return session

    # -- what the loop calls --------------------------------------------------------------

    async def prepare(self, session: ContextSession) -> list[ChatMessage]:
        """The messages for the next request: measured, pruned, flushed and compacted as due."""
        st = self._state(session)
        self._observe_usage(session, st)
        cfg = self.config
        view = self._view(session, st)
        try:
            if cfg.flush and not st.flushed and view.share >= cfg.flush_at:
                await self._flush(session, st, view)
            grown = view.tokens >= st.floor + MIN_MIDDLE_SHARE * self.budget(session).usable
            if view.share >= cfg.compact_at and st.cooldown.ready(self.clock()) and grown:
                await self._compact(session, st, reason="threshold", automatic=True)
        except Exception as exc:  # the engine must never end the user's turn
            log.exception("context engine failed in session %s", session.session_id)
            st.notices.append(
                (
                    f"The context engine failed ({type(exc).__name__}: {exc}); this request "
                    "goes out with the context as it is.",
                    "warning",
                )
            )
        view = self._view(session, st)
        level = level_passed(view.share, cfg)
        entries = session.transcript.entries
        if level > st.warned and entries and entries[-1].message.role in ("user", "tool"):
            budget = self.budget(session)
            st.notes[entries[-1].seq] = status_note(level, view.tokens, budget, cfg)
            st.warned = level
            view = self._view(session, st)
        st.sent_raw = view.raw
        st.usage_mark = session.usage.input_tokens
        return [ChatMessage.system(session.transcript.system_prompt), *view.messages]

    def take_notices(self, session: ContextSession) -> list[tuple[str, Level]]:
        """Notices for the user since the last call (compactions, failures, flushes)."""
        st = self._state(session)
        taken, st.notices = st.notices, []
        return taken

    async def handle_overflow(self, session: ContextSession) -> bool:
        """The provider said the prompt does not fit: flush, compact; True = retry."""
        st = self._state(session)
        view = self._view(session, st)
        window = self.budget(session).window
        if self.config.calibrate and 0 < view.tokens < window:
            # Our estimate was low for this model: trust it less from now on.
            st.calibration.at_least(st.calibration.factor * window / view.tokens * 1.05)
        report = await self._compact(session, st, reason="overflow", automatic=False)
        return report.compacted

    async def compact(self, session: ContextSession, *, reason: str = "manual") -> CompactionReport:
        """Flush (once per cycle) and compact now, cooldown or not."""
        return await self._compact(session, self._state(session), reason=reason, automatic=False)

    # -- reading ----------------------------------------------------------------------------

    def budget(self, session: ContextSession) -> Budget:
        return budget_for(session.model.context_window, self.config, self.max_output_tokens)

    def status(self, session: ContextSession) -> ContextStatus:
        st = self._state(session)
        view = self._view(session, st)
        budget = self.budget(session)
        return ContextStatus(
            tokens=view.tokens,
            usable=budget.usable,
            window=budget.window,
            share=view.share,
            stage=view.stage,
            compactions=st.cycle,
            cooldown_s=st.cooldown.remaining(self.clock()),
        )

    def peek(self, session: ContextSession) -> list[ChatMessage]:
        """The view ``prepare`` would send if no stage had to run (no side effects)."""
        view = self._view(session, self._state(session))
        return [ChatMessage.system(session.transcript.system_prompt), *view.messages]

    # -- measuring and the view -------------------------------------------------------------

    def _state(self, session: ContextSession) -> _State:
        st = self._states.get(session.session_id)
        if st is None:
            stored = session.transcript.archive.session(session.session_id)
            meta = stored.meta if stored else {}
            cycle = int(meta.get("compactions", 0) or 0)
            st = _State(
                cycle=cycle,
                flushed=meta.get("flushed_cycle") == cycle,
                cooldown=Cooldown(self.config.cooldown_s, self.config.cooldown_max_s),
                usage_mark=session.usage.input_tokens,
            )
            self._states[session.session_id] = st
        return st

    def _observe_usage(self, session: ContextSession, st: _State) -> None:
        reported = session.usage.input_tokens - st.usage_mark
        if self.config.calibrate and st.sent_raw and reported > 0:
            st.calibration.observe(st.sent_raw, reported)
        st.sent_raw = 0

    def _factor(self, st: _State) -> float:
        return st.calibration.factor if self.config.calibrate else 1.0

    def _raw(self, entry: Entry, st: _State) -> int:
        raw = st.raw.get(entry.seq)
        if raw is None:
            raw = st.raw[entry.seq] = message_tokens(entry.message, self.counter)
        return raw

    def _entry_tokens(self, entry: Entry, st: _State) -> int:
        raw = self._raw(entry, st)
        scaled = max(1, round(raw * self._factor(st)))
        reported = entry.tokens
        if entry.message.role == "assistant" and reported and reported <= 2 * scaled + 16:
            return reported + MESSAGE_OVERHEAD  # the model's own count of what it wrote
        return scaled

    def _fixed(self, session: ContextSession, st: _State) -> int:
        """Raw tokens of the system prompt and the tool schemas (cached while unchanged)."""
        prompt = session.transcript.system_prompt
        if st.system[0] is not prompt:
            st.system = (prompt, self.counter.count(prompt) + MESSAGE_OVERHEAD)
        specs = session.tools.specs(session.settings.toolsets)
        names = tuple(s.name for s in specs)
        if st.tools[0] != names:
            st.tools = (names, tools_tokens(specs, self.counter))
        return st.system[1] + st.tools[1]

    def _view(self, session: ContextSession, st: _State) -> _View:
        entries = session.transcript.entries
        factor = self._factor(st)
        fixed = self._fixed(session, st)
        sizes = [self._entry_tokens(e, st) for e in entries]
        unpruned = round(fixed * factor) + sum(sizes)
        budget = self.budget(session)
        pruned = prune(
            entries, budget.share(unpruned), self.config, self._locator(session, st), st.pruned
        )
        messages = pruned.messages
        raw = fixed + sum(self._raw(e, st) for e in entries)
        for i in pruned.changed:
            before = self._raw(entries[i], st)
            after = st.pruned_raw.get(messages[i].content)
            if after is None:
                after = st.pruned_raw[messages[i].content] = message_tokens(
                    messages[i], self.counter
                )
            raw += after - before
            sizes[i] = max(1, round(after * factor))
        for i, entry in enumerate(entries):
            note = st.notes.get(entry.seq)
            if note is not None:
                messages[i] = attach_note(messages[i], note)
                extra = self.counter.count(note)
                raw += extra
                sizes[i] += round(extra * factor)
        tokens = round(fixed * factor) + sum(sizes)
        return _View(messages, tokens, unpruned, raw, pruned.stage, budget.share(tokens))

    def _locator(self, session: ContextSession, st: _State) -> Callable[[Entry], str]:
        def locate(entry: Entry) -> str:
            spilled = (entry.meta or {}).get("spill_path")
            if entry.seq not in st.ids:
                wanted = [
                    e.seq
                    for e in session.transcript.entries
                    if e.message.role == "tool" and e.seq not in st.ids
                ]
                st.ids.update(session.transcript.archive.message_ids(session.session_id, wanted))
            where = (
                f'session_search(session_id="{session.session_id}", '
                f"message_id={st.ids.get(entry.seq, '?')}, offset=0)"
            )
            if spilled:
                return f'read_file(path="{spilled}") (the whole output), or {where}'
            return f"{where}, or repeat the call if its target may have changed"

        return locate

    # -- flush and compaction ---------------------------------------------------------------

    async def _flush(self, session: ContextSession, st: _State, view: _View) -> FlushResult:
        budget = self.budget(session)
        messages = self._flush_view(session, st, view, budget)
        result = await run_flush(session, messages, share=view.share)
        st.flushed = True
        st.flush_saved += len(result.saved)
        session.transcript.archive.update_session_meta(
            session.session_id, {"flushed_cycle": st.cycle}
        )
        if result.error:
            st.notices.append((f"The pre-compaction flush failed ({result.error}).", "warning"))
        elif result.wrote:
            st.notices.append(("Saved notes to today's journal before compaction.", "info"))
        return result

    def _flush_view(
        self, session: ContextSession, st: _State, view: _View, budget: Budget
    ) -> list[ChatMessage]:
        """The view for the flush request, cut to fit when the context overflowed."""
        system = ChatMessage.system(session.transcript.system_prompt)
        limit = int(budget.usable * FLUSH_VIEW_SHARE)
        if view.tokens <= limit:
            return [system, *view.messages]
        entries = session.transcript.entries
        full = prune(entries, 1.0, self.config, self._locator(session, st)).messages
        factor = self._factor(st)
        sizes = [max(1, round(message_tokens(m, self.counter) * factor)) for m in full]
        room = limit - round(self._fixed(session, st) * factor)
        cuts = compacting.valid_cuts(entries)
        start = len(full)
        while start > 0 and room - sizes[start - 1] > 0:
            room -= sizes[start - 1]
            start -= 1
        while start < len(full) and not cuts[start]:
            start += 1
        return [system, *full[start:]]

    async def _compact(
        self, session: ContextSession, st: _State, *, reason: str, automatic: bool
    ) -> CompactionReport:
        report = await self._compaction(session, st, reason=reason, automatic=automatic)
        return self._told(session, report)

    async def _compaction(
        self, session: ContextSession, st: _State, *, reason: str, automatic: bool
    ) -> CompactionReport:
        started = time.perf_counter()
        cfg = self.config
        budget = self.budget(session)
        before = self._view(session, st)
        entries = list(session.transcript.entries)
        tail_budget, tail_min = int(cfg.tail_share * budget.usable), cfg.tail_min_messages
        if not automatic:
            # By hand the user wants a smaller context now, whatever the window; on
            # an overflow the provider counted more than we did, so our estimate
            # cannot size the tail: either way keep a quarter of the conversation.
            conversation = sum(self._entry_tokens(e, st) for e in entries)
            tail_budget = min(tail_budget, conversation // 4)
        if reason == "overflow":
            tail_min = min(tail_min, OVERFLOW_TAIL_MIN)
        plan = compacting.plan(
            entries,
            lambda e: self._entry_tokens(e, st),
            tail_budget=tail_budget,
            tail_min=tail_min,
            head_budget=int(compacting.HEAD_SHARE * budget.usable),
        )
        base = {"session_id": session.session_id, "reason": reason, "tokens_before": before.tokens}
        middle_tokens = sum(self._entry_tokens(e, st) for e in plan.replaced)
        if plan.empty or (automatic and middle_tokens < MIN_MIDDLE_SHARE * budget.usable):
            note = "every message is in the kept head, the pinned ask or the recent tail"
            base.update(flushed=st.flushed, flush_saved=st.flush_saved)
            return self._done(base, started, 0.0, compacted=False, note=note)
        # The flush comes once there is something to compact (and once per cycle);
        # it changes no entry, so the plan stands.
        flush: FlushResult | None = None
        if cfg.flush and not st.flushed:
            flush = await self._flush(session, st, before)
        model_seconds = flush.seconds if flush else 0.0
        base.update(flushed=st.flushed, flush_saved=st.flush_saved)
        previous = (plan.previous.meta or {}).get(COMPACTION_KEY) if plan.previous else None
        needs, parts = compacting.requirements(
            plan,
            previous_meta=previous if isinstance(previous, dict) else None,
            max_identifiers=cfg.max_identifiers,
            ignore=[session.session_id],
        )
        calls = compacting.ModelCalls(
            self.summariser or session.model, self._summary_settings(session)
        )
        archive = session.transcript.archive
        # Small windows get a shorter summary, and each request (instructions,
        # previous summary, messages, must-keep list) must fit the window too.
        max_tokens = min(cfg.summary_max_tokens, max(SUMMARY_MIN_TOKENS, budget.usable // 8))
        input_budget = max(SUMMARY_MIN_TOKENS, budget.usable // 2 - max_tokens)
        try:
            summary = await compacting.summarise(
                calls,
                plan,
                needs,
                parts,
                max_tokens=max_tokens,
                input_budget=min(cfg.summary_input_tokens, input_budget),
                cost=self.counter.count,
            )
        except compacting.SummaryError as exc:
            delay = st.cooldown.fail(self.clock())
            self._add_usage(session, calls)
            report = self._done(
                base,
                started,
                model_seconds + calls.seconds,
                compacted=False,
                error=str(exc),
                retry_in=delay,
                summary_requests=calls.requests,
            )
            st.notices.append((report.describe(), "warning"))
            return report
        cycle = st.cycle + 1
        replaced = plan.replaced
        content = compacting.framed(
            summary.body,
            first_seq=replaced[0].seq,
            last_seq=replaced[-1].seq,
            cycle=cycle,
            notes=self._summary_notes(session),
        )
        prompt = self._rebuilt_prompt(session)
        meta = {
            COMPACTION_KEY: {
                "after": plan.head[-1].seq if plan.head else 0,
                "cycle": cycle,
                "reason": reason,
                "replaces": _ranges(e.seq for e in plan.middle),
                "guard": summary.outcome,
                "identifiers": needs.identifiers,
                "rules": needs.rules,
                "asks": needs.asks,
            }
        }
        if session.memory_providers is not None:  # its last look before they leave the context
            session.memory_providers.pre_compress([e.message for e in replaced])
        stored = archive.replace_with_summary(
            session.session_id,
            Message(role="user", content=content, speaker="kenning", meta=meta),
            [e.seq for e in plan.middle],
            {"system_prompt": prompt, "compactions": cycle},
        )
        self._add_usage(session, calls)
        kept = plan.kept(Entry(stored.seq or 0, ChatMessage.user(content), None, stored.meta))
        session.transcript.compacted(len(entries), kept, prompt)
        st.cycle, st.flushed, st.flush_saved, st.warned, st.notes = cycle, False, 0, 0.0, {}
        live = {e.seq for e in session.transcript.entries}
        st.raw = {seq: n for seq, n in st.raw.items() if seq in live}
        st.pruned = {key: text for key, text in st.pruned.items() if key[0] in live}
        st.pruned_raw = {}
        st.cooldown.succeed()
        after = self._view(session, st)
        st.floor = after.tokens if after.share >= cfg.compact_at else 0
        session.context_tokens = after.tokens
        caught = summary.verdict
        report = self._done(
            {**base, "tokens_after": after.tokens},
            started,
            model_seconds + calls.seconds,
            compacted=True,
            messages_compacted=len(replaced),
            first_seq=replaced[0].seq,
            last_seq=replaced[-1].seq,
            guard=summary.outcome,
            caught=(
                *caught.missing_identifiers,
                *caught.missing_rules,
                *(["latest user ask"] if caught.ask_missing else []),
            ),
            summary_requests=calls.requests,
        )
        st.notices.append((report.describe(), "info"))
        return report

    def _done(
        self, base: dict[str, Any], started: float, model_seconds: float, **fields: Any
    ) -> CompactionReport:
        return CompactionReport(
            **base,
            seconds=time.perf_counter() - started,
            model_seconds=model_seconds,
            **fields,
        )

    def _told(self, session: ContextSession, report: CompactionReport) -> CompactionReport:
        if self.on_compaction is not None:
            self.on_compaction(session, report)
        return report

    def _summary_notes(self, session: ContextSession) -> list[str]:
        notes = []
        for note in self.summary_notes:
            try:
                text = note(session)
            except Exception as exc:  # a note is extra; the compaction must not fail for it
                self._state(session).notices.append((f"A summary note failed ({exc}).", "warning"))
                continue
            if text.strip():
                notes.append(text.strip())
        return notes

    def _summary_settings(self, session: ContextSession) -> Any:
        base = session.settings.model_settings
        wanted = 2 * self.config.summary_max_tokens  # room for the identifier list
        limit = min(wanted, base.max_output_tokens) if base.max_output_tokens else wanted
        return replace(base, max_output_tokens=limit)

    def _rebuilt_prompt(self, session: ContextSession) -> str:
        try:
            return self.prompt_builder(session)
        except Exception as exc:  # keep the old prompt rather than lose the compaction
            self._state(session).notices.append(
                (f"The system prompt could not be rebuilt ({exc}); the old one is kept.", "warning")
            )
            return session.transcript.system_prompt

    def _add_usage(self, session: ContextSession, calls: compacting.ModelCalls) -> None:
        if calls.usage.input_tokens or calls.usage.output_tokens:
            session.transcript.archive.add_usage(
                session.session_id, calls.usage.input_tokens, calls.usage.output_tokens
            )


def default_prompt(session: ContextSession) -> str:
    """The standard system prompt, rebuilt: hot memory, skills index and journal reloaded."""
    task = next(
        (
            e.message.content
            for e in reversed(session.transcript.entries)
            if e.message.role == "user" and not compacting.is_summary(e)
        ),
        None,
    )
    return build_system_prompt(
        session.home, cwd=session.cwd, task=task, skills_block=skills_block(session.home)
    ).text


def _ranges(seqs: Sequence[int] | Any) -> list[list[int]]:
    """``[1, 2, 3, 7, 8]`` → ``[[1, 3], [7, 8]]``."""
    ranges: list[list[int]] = []
    for seq in sorted(seqs):
        if ranges and seq == ranges[-1][1] + 1:
            ranges[-1][1] = seq
        else:
            ranges.append([seq, seq])
    return ranges


async def compact_now(session: ContextSession) -> CompactionReport:
    """``/compact``: compact ``session`` now with its engine (or one from its home's config)."""
    engine = session.context_engine
    if engine is None:
        engine = ContextEngine.from_home(session.home)
        engine.attach(session)
    return await engine.compact(session, reason="manual")
