"""Goal mode: work on one goal over many turns until it is done or a limit stops it.

A goal run is an ordinary session whose turns Kenning starts itself. The
goal, its budgets and its progress live in the session's archived meta under
``"goal"``, written after every turn, so ``kenning run --resume ID`` after a
crash continues from the last finished turn (the turn that was running is
repaired like any interrupted turn and counted again).

After each turn the policy decides (in this order):

1. the turn failed (a model error): ``stopped: error``;
2. a check is given: it runs in the working directory; exit 0 is
   ``done (check passed)``; otherwise its output is fed back next turn;
3. no check: the model declared the goal done with its evidence
   (``goal_progress(done=true, evidence=…)``): ``done (declared, no check)``;
4. ``max_idle_turns`` turns in a row without a tool effect (no successful
   call of a tool that changes something): ``stopped: no progress``;
5. a budget is spent (turns, tokens, wall time across resumes):
   ``stopped: budget``: reaching a limit never proves the goal done;
6. otherwise Kenning continues with a message that says why.

Each status has its exit code (``EXIT_CODES``): only a passed check is 0.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from dataclasses import asdict, dataclass, field, fields
from typing import TYPE_CHECKING, Any

from kenning.agent.events import Event, ToolFinished, TurnEnded
from kenning.tools.base import Access, Tool, ToolError

if TYPE_CHECKING:
    from kenning.agent.loop import AgentSession

META_KEY = "goal"
RUNNING = "running"
DONE_CHECKED = "done (check passed)"
DONE_DECLARED = "done (declared, no check)"
STOPPED_BUDGET = "stopped: budget"
STOPPED_IDLE = "stopped: no progress"
STOPPED_ERROR = "stopped: error"
EXIT_CODES = {
    DONE_CHECKED: 0,
    DONE_DECLARED: 10,
    STOPPED_BUDGET: 11,
    STOPPED_IDLE: 12,
    STOPPED_ERROR: 13,
}
CHECK_OUTPUT_CHARS = 4_000  # of a failed check's output, fed back to the model
NOTES_KEPT = 50
PROGRESS_TOOL = "goal_progress"


@dataclass(frozen=True)
class Budget:
    max_turns: int = 10
    max_tokens: int = 0  # prompt + answer tokens over all turns; 0 = no limit
    max_time_s: float = 0.0  # wall time over all turns and resumes; 0 = no limit
    max_idle_turns: int = 3

    def describe(self) -> str:
        parts = [f"{self.max_turns} turns"]
        if self.max_tokens:
            parts.append(f"{self.max_tokens:,} tokens")
        if self.max_time_s:
            parts.append(f"{self.max_time_s / 60:g} min")
        return ", ".join(parts)


@dataclass
class GoalState:
    """Everything stored about a goal; ``to_meta`` / ``from_meta`` for the archive."""

    goal: str
    check: str = ""
    budget: Budget = field(default_factory=Budget)
    status: str = RUNNING
    turns: int = 0
    tokens: int = 0
    elapsed_s: float = 0.0
    idle_turns: int = 0
    notes: list[str] = field(default_factory=list)
    evidence: str = ""  # what the model gave when it declared the goal done
    last_check: str = ""  # the failed check's output, for the next message
    detail: str = ""  # why the run ended, in words
    job: str = ""  # the cron job that queued it, if any

    def to_meta(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_meta(cls, raw: object) -> GoalState | None:
        if not isinstance(raw, dict) or not isinstance(raw.get("goal"), str):
            return None
        known = {f.name for f in fields(cls)}
        values = {k: v for k, v in raw.items() if k in known}
        budget = raw.get("budget")
        if isinstance(budget, dict):
            names = {f.name for f in fields(Budget)}
            values["budget"] = Budget(**{k: v for k, v in budget.items() if k in names})
        return cls(**values)

    @property
    def finished(self) -> bool:
        return self.status != RUNNING

    @property
    def exit_code(self) -> int:
        return EXIT_CODES.get(self.status, 1)

    def spent(self) -> str:
        """Which budget is spent, in words, or ""."""
        b = self.budget
        if self.turns >= b.max_turns:
            return f"{self.turns} of {b.max_turns} turns used"
        if b.max_tokens and self.tokens >= b.max_tokens:
            return f"{self.tokens:,} of {b.max_tokens:,} tokens used"
        if b.max_time_s and self.elapsed_s >= b.max_time_s:
            return f"{self.elapsed_s:.0f} of {b.max_time_s:.0f} s used"
        return ""


def load(session: AgentSession) -> GoalState | None:
    stored = session.home.archive.session(session.session_id)
    return GoalState.from_meta((stored.meta if stored else {}).get(META_KEY))


def save(session: AgentSession, state: GoalState) -> None:
    session.home.archive.update_session_meta(session.session_id, {META_KEY: state.to_meta()})


def progress_tool(state: GoalState) -> Tool:
    """``goal_progress``: the model's notes on the goal, and its declaration that it is done."""

    def goal_progress(note: str, done: bool = False, evidence: str = "") -> str:
        """Record progress on the goal; with done=true, declare it achieved.

        Call it when you finish a step (a short note of what changed) and when the goal
        is achieved: done=true with the evidence (a command's output, the file that
        proves it). With a check command, the check decides whether it is done.

        Args:
            note: What you did or found in this step, in one or two sentences.
            done: True when the goal is achieved.
            evidence: With done=true: what shows that the goal is achieved.
        """
        if done and not evidence.strip():
            raise ToolError(
                "done=true needs evidence", "say what shows the goal is achieved, then call again"
            )
        state.notes = [*state.notes, note.strip()][-NOTES_KEPT:]
        if done:
            state.evidence = evidence.strip()
            return "Noted: declared done. Kenning checks it after this turn."
        return "Noted."

    return Tool.from_function(goal_progress, toolset="goal", access=lambda a, c: Access.NONE)


def first_message(state: GoalState) -> str:
    if state.check:
        after = (
            f"After each turn Kenning runs the check `{state.check}`: the goal is done when "
            "it exits 0; if it fails you get its output and continue."
        )
    else:
        after = (
            "There is no check command: the goal is done when you declare it with "
            f"{PROGRESS_TOOL}(done=true, evidence=…); until then Kenning asks you to continue."
        )
    return (
        f"{state.goal}\n\n[Goal mode: you work on this goal over several turns, nobody is "
        f"watching. {after} Record progress with {PROGRESS_TOOL}(note=…). Budget: "
        f"{state.budget.describe()}; a turn without any tool effect counts toward stopping "
        f"after {state.budget.max_idle_turns} such turns.]"
    )


def continuation(state: GoalState, extra: str = "") -> str:
    lines = [
        f"[Goal mode, turn {state.turns + 1} of at most {state.budget.max_turns}] The goal is "
        f"not done yet: {state.goal}"
    ]
    if state.check and state.last_check:
        lines.append(f"The check `{state.check}` failed:\n```\n{state.last_check}\n```")
    elif not state.check:
        lines.append(
            f"You have not declared it done. When it is, call {PROGRESS_TOOL}(done=true, "
            "evidence=…); otherwise take the next step."
        )
    if state.notes:
        lines.append("Your notes so far:\n" + "\n".join(f"- {n}" for n in state.notes[-10:]))
    if extra.strip():
        lines.append(f"The user adds: {extra.strip()}")
    return "\n\n".join(lines)


@dataclass(frozen=True)
class GoalEnded:
    """The last event of a goal run."""

    status: str
    turns: int
    detail: str
    session_id: str
    exit_code: int
    type: str = "goal_ended"


async def run_goal(
    session: AgentSession,
    state: GoalState,
    *,
    check_timeout_s: float,
    extra: str = "",
) -> AsyncIterator[Event | GoalEnded]:
    """Turns until the policy stops; every event of every turn, then ``GoalEnded``."""
    from kenning.tools.shell import run_command  # the check runs like a shell command

    if session.tools.get(PROGRESS_TOOL) is None:
        session.tools.register(progress_tool(state))
    message = first_message(state) if state.turns == 0 else continuation(state, extra)
    save(session, state)
    while not state.finished:
        started = time.monotonic()
        ended: TurnEnded | None = None
        effects = 0
        state.evidence = ""
        async for event in session.turn(message):
            if isinstance(event, ToolFinished) and event.ok and _has_effect(session, event):
                effects += 1
            if isinstance(event, TurnEnded):
                ended = event
            yield event
        assert ended is not None
        state.turns += 1
        state.tokens += ended.usage.input_tokens + ended.usage.output_tokens
        state.elapsed_s += time.monotonic() - started
        if ended.reason == "error":
            _finish(state, STOPPED_ERROR, ended.error or "the turn failed")
        elif state.check:
            result = await run_command(state.check, session.cwd, check_timeout_s)
            if result.ok:
                _finish(state, DONE_CHECKED, f"`{state.check}` exited 0")
            else:
                state.last_check = result.text[-CHECK_OUTPUT_CHARS:]
        elif state.evidence:
            _finish(state, DONE_DECLARED, state.evidence)
        if not state.finished:
            state.idle_turns = 0 if effects or state.evidence else state.idle_turns + 1
            spent = state.spent()
            if state.idle_turns >= state.budget.max_idle_turns:
                _finish(
                    state, STOPPED_IDLE, f"{state.idle_turns} turns in a row with no tool effect"
                )
            elif spent:
                _finish(state, STOPPED_BUDGET, spent)
        save(session, state)
        message = continuation(state)
    yield GoalEnded(state.status, state.turns, state.detail, session.session_id, state.exit_code)


def _finish(state: GoalState, status: str, detail: str) -> None:
    state.status = status
    state.detail = detail


def _has_effect(session: AgentSession, event: ToolFinished) -> bool:
    """A successful call of a tool that can change something (not a read, not a note)."""
    tool = session.tools.get(event.call.name)
    return tool is not None and not tool.read_only and tool.name != PROGRESS_TOOL


def describe_end(ended: GoalEnded) -> str:
    turns = f"{ended.turns} turn{'s' if ended.turns != 1 else ''}"
    return f"goal {ended.status} after {turns}: {ended.detail}"


_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def parse_duration(text: str) -> float:
    """``30m``, ``2h``, ``90s``, ``1h30m`` or plain seconds; ValueError says the forms."""
    raw = text.strip().lower().replace(" ", "")
    if raw.replace(".", "", 1).isdigit():
        return float(raw)
    total, number = 0.0, ""
    for ch in raw:
        if ch.isdigit() or ch == ".":
            number += ch
        elif ch in _UNITS and number:
            total += float(number) * _UNITS[ch]
            number = ""
        else:
            number = "x"
            break
    if number or total <= 0:
        raise ValueError(f"{text!r} is not a duration; use e.g. 90s, 30m, 2h or 1h30m")
    return total


def record_outcome(session: AgentSession, state: GoalState) -> None:
    """The session-scoped learning of a goal run: ``goals/<session>.md``, as one commit.

    What the run did and how it ended stays with the session instead of going
    into global memory unreviewed (``agent.goal_review_scope = "session"``);
    ``kenning review SESSION`` can still promote it by hand.
    """
    from kenning.fsutil import atomic_write

    home = session.home
    path = home.root / "goals" / f"{session.session_id}.md"
    lines = [
        f"# Goal: {state.goal}",
        "",
        f"- session: {session.session_id}",
        f"- status: {state.status} after {state.turns} turn(s) ({state.detail})",
    ]
    if state.check:
        lines.append(f"- check: `{state.check}`")
    if state.notes:
        lines += ["", "## Progress notes", *(f"- {note}" for note in state.notes)]
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, "\n".join(lines) + "\n")
    home.history.record([path], f"goal: {state.status} — {state.goal[:60]}")
