"""When a review runs: counters on the session's hooks, a background task, one line for the user.

``install_review(session)`` attaches a :class:`ReviewRunner` to a session's
hooks (``tool_end``, ``turn_end``, ``session_end``):

- counters: user turns since the agent last wrote memory, model requests
  since it last wrote a skill (Hermes' ``_turns_since_memory`` /
  ``_iters_since_skill``); a successful ``memory`` write or ``skill_manage``
  call by the agent itself resets its counter;
- after a turn that ended with a final answer (not interrupted, not failed),
  a counter at its threshold (``review.memory_every_user_turns``,
  ``review.skills_every_iterations``; 0 = off) starts a memory, skill or
  combined review as an asyncio task in the same loop — the user's next turn
  does not wait for it;
- sessions of source cron, subagent and review never trigger one;
- one review per session at a time: in this process the runner keeps one
  task, across processes a lock file (``cache/locks/review-<id>.lock``);
- the counters, and each kind's cursor (the last message seq reviewed with
  success), live in the session's archived meta under ``"review"``, so they
  survive ``--resume``. A cursor advances only when a review succeeds; a
  failed kind is remembered as pending and joins the next review, which
  starts again from the same message;
- when a review changes something, the user gets one ``Notice``
  (``memory updated · skill 'x' patched``) through ``on_notice`` or
  :func:`take_notices`; when it changes nothing, nothing is said;
- when the session closes, a running review is awaited (it has its own time
  budget), so a one-shot ``kenning run`` still learns.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from kenning.agent.events import Notice, TurnEnded
from kenning.agent.loop import AgentSession
from kenning.archive.store import Archive
from kenning.home import Home
from kenning.learning.review import (
    KINDS,
    ReviewReport,
    Snapshot,
    run_review,
    summary_line,
    take_snapshot,
)
from kenning.locks import Busy, locks_dir, try_lock
from kenning.models.types import Model
from kenning.tools.registry import ToolOutcome

log = logging.getLogger(__name__)

META_KEY = "review"
# Automated sessions are the agent talking to itself: reviewing them would
# teach it its own output (and a review reviewing a review never ends).
NEVER_REVIEWED = frozenset({"cron", "subagent", "review", "import"})


def reviewable(source: str, meta: dict[str, Any]) -> bool:
    """Whether a session of ``source`` is a conversation with a person to learn from.

    An import is someone's history, read in bulk: never reviewed by itself. A
    host session archived live as it grows (``meta.host``, kenning.hosts) is
    a conversation like Kenning's own, and reviewed on the same rules.
    """
    return source not in NEVER_REVIEWED or (source == "import" and bool(meta.get("host")))


# What ``review --last`` means by the last session: a conversation with the
# user in Kenning (chat or run), never an MCP client's record of writes or an import.
CONVERSATIONS = ("cli", "run")
_MEMORY_WRITES = frozenset({"add", "replace", "remove"})


@dataclass
class ReviewState:
    """What the session's meta keeps between turns and across ``--resume``."""

    turns_since_memory: int = 0
    iterations_since_skill: int = 0
    reviewed_through: dict[str, int] = field(default_factory=dict)  # kind -> last seq
    pending: list[str] = field(default_factory=list)  # kinds whose last review failed

    def cursor(self, kinds: Sequence[str]) -> int:
        return min(self.reviewed_through.get(k, 0) for k in kinds)

    def to_dict(self) -> dict[str, Any]:
        return {
            "turns_since_memory": self.turns_since_memory,
            "iterations_since_skill": self.iterations_since_skill,
            "reviewed_through": dict(self.reviewed_through),
            "pending": list(self.pending),
        }

    @classmethod
    def from_dict(cls, raw: object) -> ReviewState:
        if not isinstance(raw, dict):
            return cls()
        through = raw.get("reviewed_through")
        pending = raw.get("pending")
        return cls(
            _int(raw.get("turns_since_memory")),
            _int(raw.get("iterations_since_skill")),
            {k: _int(v) for k, v in through.items() if k in KINDS}
            if isinstance(through, dict)
            else {},
            [k for k in pending if k in KINDS] if isinstance(pending, list) else [],
        )


def _int(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def load_state(archive: Archive, session_id: str) -> ReviewState:
    session = archive.session(session_id)
    return ReviewState.from_dict(session.meta.get(META_KEY) if session else None)


def save_state(archive: Archive, session_id: str, state: ReviewState) -> None:
    """Store ``state``; cursors only move forward (another process may have reviewed too)."""
    stored = load_state(archive, session_id)
    for kind, seq in stored.reviewed_through.items():
        state.reviewed_through[kind] = max(seq, state.reviewed_through.get(kind, 0))
    archive.update_session_meta(session_id, {META_KEY: state.to_dict()})


def review_model(home: Home, fallback: Model) -> Model:
    """``review.model`` if set, else the session's own model."""
    spec = home.config.review.model.strip()
    if not spec:
        return fallback
    from kenning.models.registry import resolve_model

    return resolve_model(spec, home.config.model, config_path=home.layout.config_file)


def lock_file(home: Home, session_id: str) -> Path:
    return locks_dir(home.root) / f"review-{session_id}.lock"


def busy_report(snapshot: Snapshot, kinds: Sequence[str]) -> ReviewReport:
    return ReviewReport(
        snapshot.session_id, tuple(kinds), snapshot.first_seq, snapshot.last_seq, "busy"
    )


async def review_locked(
    home: Home,
    snapshot: Snapshot,
    kinds: Sequence[str],
    model: Model,
    *,
    state: ReviewState,
    cwd: Path | None = None,
) -> ReviewReport:
    """``run_review`` under the session's lock, moving ``state``'s cursors on success."""

    decided: list[ReviewReport] = []

    def landed(report: ReviewReport) -> None:
        decided.append(report)
        if report.ok:
            for kind in report.kinds:
                current = state.reviewed_through.get(kind, 0)
                state.reviewed_through[kind] = max(current, report.last_seq)
            state.pending = [k for k in state.pending if k not in report.kinds]
        else:
            state.pending = sorted(set(state.pending) | set(report.kinds))
        save_state(home.archive, snapshot.session_id, state)

    try:
        with try_lock(lock_file(home, snapshot.session_id)):
            report = await run_review(home, snapshot, kinds, model, cwd=cwd, on_landed=landed)
    except Busy:
        return busy_report(snapshot, kinds)
    except asyncio.CancelledError:
        if not decided:  # cancelled before landing: nothing landed, review it again later
            landed(replace(busy_report(snapshot, kinds), status="failed", error="cancelled"))
        raise
    if report.status in ("empty", "failed"):  # decided before landing: record it now
        landed(report)
    return report


class ReviewRunner:
    """The review machinery of one live session (see the module docstring)."""

    def __init__(self, session: AgentSession, *, model: Model | None = None) -> None:
        self.session = session
        self.home = session.home
        self.model = model
        self.state = load_state(self.home.archive, session.session_id)
        self.on_notice: Callable[[Notice], None] | None = None
        self.reports: list[ReviewReport] = []
        self._notices: list[Notice] = []
        self._task: asyncio.Task[ReviewReport] | None = None
        self._wrote_memory = False
        self._wrote_skill = False

    @property
    def automatic(self) -> bool:
        cfg = self.home.config.review
        active = cfg.memory_every_user_turns > 0 or cfg.skills_every_iterations > 0
        return active and self.session.settings.source not in NEVER_REVIEWED

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    # -- hooks ----------------------------------------------------------------------------

    def tool_end(self, session: AgentSession, outcome: ToolOutcome) -> None:
        if not outcome.result.ok:
            return
        if outcome.call.name == "skill_manage":
            self._wrote_skill = True
        elif outcome.call.name == "memory" and _writes_memory(outcome.call.arguments):
            self._wrote_memory = True

    def turn_end(self, session: AgentSession, ended: TurnEnded) -> None:
        if not self.automatic:
            return
        state = self.state
        state.turns_since_memory = 0 if self._wrote_memory else state.turns_since_memory + 1
        state.iterations_since_skill = (
            0 if self._wrote_skill else state.iterations_since_skill + ended.iterations
        )
        self._wrote_memory = self._wrote_skill = False
        kinds = self.due() if ended.reason == "final" and not self.running else []
        if kinds:
            self.start(kinds)
        save_state(self.home.archive, session.session_id, state)

    async def session_end(self, session: AgentSession, reason: object) -> None:
        await self.wait()

    def due(self) -> list[str]:
        """The kinds whose counter reached its threshold (plus kinds pending after a failure)."""
        cfg = self.home.config.review
        kinds = set()
        every = cfg.memory_every_user_turns
        if every > 0 and self.state.turns_since_memory >= every:
            kinds.add("memory")
        every = cfg.skills_every_iterations
        if every > 0 and self.state.iterations_since_skill >= every:
            kinds.add("skills")
        if kinds:
            kinds |= set(self.state.pending)
        return [k for k in KINDS if k in kinds]

    # -- running --------------------------------------------------------------------------

    def start(self, kinds: Sequence[str]) -> asyncio.Task[ReviewReport]:
        """Start a background review of ``kinds`` on a snapshot taken now."""
        snapshot = self._snapshot(kinds)
        self._task = asyncio.get_running_loop().create_task(
            self._background(snapshot, kinds), name=f"review {self.session.session_id}"
        )
        return self._task

    def _snapshot(self, kinds: Sequence[str]) -> Snapshot:
        if "memory" in kinds:
            self.state.turns_since_memory = 0
        if "skills" in kinds:
            self.state.iterations_since_skill = 0
        return take_snapshot(self.home.archive, self.session.session_id, self.state.cursor(kinds))

    async def _background(self, snapshot: Snapshot, kinds: Sequence[str]) -> ReviewReport:
        try:
            report = await self._run(snapshot, kinds)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # never let a review's bug reach the user's loop
            log.warning("background review of %s failed: %s", snapshot.session_id, exc)
            report = replace(busy_report(snapshot, kinds), status="failed", error=str(exc))
        if report.changed:
            self._notify(Notice(summary_line(report)))
        return report

    async def _run(self, snapshot: Snapshot, kinds: Sequence[str]) -> ReviewReport:
        model = self.model or review_model(self.home, self.session.model)
        report = await review_locked(
            self.home, snapshot, kinds, model, state=self.state, cwd=self.session.cwd
        )
        self.reports.append(report)
        return report

    async def run_now(self, kinds: Sequence[str] = KINDS) -> ReviewReport:
        """A review in the foreground (``/review``): waits for a running one first."""
        await self.wait()
        snapshot = self._snapshot(kinds)
        self._task = asyncio.get_running_loop().create_task(self._run(snapshot, kinds))
        return await self._task

    async def wait(self) -> ReviewReport | None:
        """The running review's report once it is done (None when none runs)."""
        task = self._task
        if task is None:
            return None
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.wait([task])
        if task.cancelled() or task.exception() is not None:
            return None
        return task.result()

    def cancel(self) -> None:
        if self.running and self._task is not None:
            self._task.cancel()

    # -- what the user sees ---------------------------------------------------------------

    def _notify(self, notice: Notice) -> None:
        if self.on_notice is not None:
            try:
                self.on_notice(notice)
                return
            except Exception:
                log.debug("on_notice failed", exc_info=True)
        self._notices.append(notice)

    def take_notices(self) -> list[Notice]:
        taken, self._notices = self._notices, []
        return taken


def _writes_memory(arguments: str) -> bool:
    try:
        args = json.loads(arguments or "{}")
    except ValueError:
        return False
    return isinstance(args, dict) and (
        bool(args.get("operations")) or args.get("action") in _MEMORY_WRITES
    )


_runners: weakref.WeakKeyDictionary[AgentSession, ReviewRunner] = weakref.WeakKeyDictionary()


def install_review(session: AgentSession, *, model: Model | None = None) -> ReviewRunner:
    """Attach the background review to ``session`` (once; later calls return the same runner).

    ``model`` replaces the review model (tests, benches); otherwise it is
    ``review.model`` or the session's own, resolved when a review starts.
    """
    runner = _runners.get(session)
    if runner is None:
        runner = ReviewRunner(session, model=model)
        session.hooks.add("tool_end", runner.tool_end)
        session.hooks.add("turn_end", runner.turn_end)
        session.hooks.add("session_end", runner.session_end)
        _runners[session] = runner
    elif model is not None:
        runner.model = model
    return runner


def runner_for(session: AgentSession) -> ReviewRunner | None:
    return _runners.get(session)


async def review_now(session: AgentSession, *, model: Model | None = None) -> ReviewReport:
    """Review the session's unreviewed messages now, in the foreground (``/review``)."""
    return await install_review(session, model=model).run_now(KINDS)


def take_notices(session: AgentSession) -> list[Notice]:
    """Review notices not yet shown (when no ``on_notice`` callback was set)."""
    runner = _runners.get(session)
    return runner.take_notices() if runner is not None else []
