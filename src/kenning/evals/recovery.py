"""Scenario 4 — recovery across processes: kill Kenning mid-work, resume, count the damage.

Each part runs ``kenning run`` as a real child process on a scratch home,
kills its process group with SIGKILL at a chosen moment, then resumes the
session with ``kenning run --resume`` in a new process:

- **during a tool call**: the task runs a fixture script that appends one
  line per start to ``effects.log`` and then works for a while; the kill
  lands while it works. After the resume: the ask and the call are still in
  the archive, the dangling call was answered as interrupted, and the side
  effect was not repeated (the fixture counts the starts);
- **during a subagent**: the same, but the session delegated the command to
  a subagent (``delegate_task``) and the kill lands in the subagent's call:
  the subagent's result is lost — is the parent told so (its call answered
  as interrupted), is anything delivered twice, is the work repeated?
- **during a background review**: the turn ends, the memory review starts
  (``review.memory_every_user_turns = 1``), the kill lands inside it. After:
  nothing half-landed (no uncommitted change in the home), the review lock
  is free, and the next turn's review completes.

- **during a goal run**: ``kenning run --goal`` deploys three releases, one
  per turn, with a check; the kill lands in the deploy of release 2 (a tool
  call of the second turn). After ``kenning run --resume ID`` (no task: the
  stored goal goes on): the goal and its progress notes were kept, no
  finished turn ran again, no deploy was started twice (the fixture counts
  the starts; an interrupted deploy is to be finished with ``--finish``), and
  the goal ends ``done (check passed)``.

A shell command Kenning started ends with it, even when Kenning is SIGKILLed
(a watcher in the command's process group sees Kenning go: ``tools/shell.py``).
Each part checks that (``command_outlived_kill``: the fixture command is still
there after a generous wait) and ends a survivor itself, as a crash of the
whole machine would, so the counts after the resume never depend on how fast
the resume was.

With the scripted agent this measures Kenning (the transcript repair, the
review's all-or-nothing landing, lock release); a real model adds whether it
checks before re-running an interrupted command.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kenning.agent.goal import DONE_CHECKED, PROGRESS_TOOL, GoalState
from kenning.agent.goal import META_KEY as GOAL_META
from kenning.archive.store import Archive
from kenning.evals.harness import Agent, Meter, Outcome, Scenario, Scratch
from kenning.home import Home
from kenning.locks import Busy, locks_dir, try_lock
from kenning.models.types import Usage
from kenning.testing.procs import gone

SCRIPT = "side_effect.sh"
# A fixture command works while its hold file exists (60 s at most): the kill lands
# inside it, and once the scenario removes the file, a command run again ends at once.
HOLD_WAIT = 'i=0\nwhile [ -e "{hold}" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done\n'
TOOL_TASK = f"Task: run `sh {SCRIPT}` once; it records one deploy in effects.log."
RESUME_ASK = (
    f"Task: run `sh {SCRIPT}` once; it records one deploy in effects.log. "
    "If an earlier attempt was interrupted, check before running it again."
)
WAIT_S = 60.0
ORPHAN_WAIT_S = 20.0  # how long a killed Kenning's command may take to go (polled)
DELEGATE_PREFIX = "Task: delegate to a subagent: "


def config_toml(model: dict[str, Any], *, review_every: int = 0) -> str:
    """A scratch home's config.toml for a child process (TOML strings are JSON strings)."""
    lines = ["[model]"]
    lines += [f"{key} = {json.dumps(value)}" for key, value in model.items()]
    lines += [
        "",
        "[embedding]",
        'provider = "none"',
        "",
        "[agent]",
        'shell_approval = "allowlist"',
        'shell_allow = ["sh"]',
        "",
        "[review]",
        f"memory_every_user_turns = {review_every}",
        "skills_every_iterations = 0",
    ]
    return "\n".join(lines) + "\n"


def _child(home: Home, work: Path, *args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "KENNING_HOME": str(home.root)}
    env.pop("KENNING_PROFILE", None)
    return subprocess.Popen(
        [sys.executable, "-m", "kenning", "run", *args],
        cwd=work,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group: the kill reaches what Kenning started
        # in it (a shell tool's command is in a group of its own, and must end by itself)
    )


def _kill(proc: subprocess.Popen[str]) -> None:
    with contextlib.suppress(ProcessLookupError):  # it may have ended by itself
        os.killpg(proc.pid, signal.SIGKILL)
    proc.communicate(timeout=30)


def _wait(predicate: Callable[[], bool], proc: subprocess.Popen[str]) -> bool:
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        if predicate():
            return True
        if proc.poll() is not None:
            return predicate()
        time.sleep(0.05)
    return False


def _finish(proc: subprocess.Popen[str]) -> tuple[int, str]:
    try:
        out, err = proc.communicate(timeout=WAIT_S * 2)
    except subprocess.TimeoutExpired:
        _kill(proc)
        return -9, "timed out"
    return proc.returncode, (out + err)[-2000:]


def _text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return ""


def end_orphan(pid_file: Path) -> bool:
    """Whether the fixture command whose pid ``pid_file`` holds outlived Kenning's kill
    (it gets ``ORPHAN_WAIT_S`` to go); a survivor is killed (its whole process group), so
    nothing finishes behind our back."""
    try:
        pid = int(_text(pid_file).split()[0])
    except (IndexError, ValueError):
        return False  # it never started
    if gone(pid, ORPHAN_WAIT_S):
        return False
    try:
        group = os.getpgid(pid)
    except ProcessLookupError:
        return False  # it went just now
    if group == os.getpgrp():  # a reused pid in our own group: not the fixture's
        return False
    with contextlib.suppress(ProcessLookupError):
        os.killpg(group, signal.SIGKILL)
    return True


def _sessions(home: Home, source: str) -> list[Any]:
    if not home.layout.state_db.exists():
        return []
    archive = Archive(home.layout.state_db)
    try:
        return list(archive.sessions(limit=50, sources=[source]))
    finally:
        archive.close()


def _spend(home: Home, meter: Meter) -> None:
    """What the child processes spent, from the archive (they had their own meters)."""
    archive = Archive(home.layout.state_db)
    try:
        for session in archive.sessions(limit=100):
            replies = [m for m in archive.messages(session.id) if m.role == "assistant"]
            meter.requests += len(replies)
            meter.usage = meter.usage + Usage(session.input_tokens, session.output_tokens)
    finally:
        archive.close()


def kill_during_tool_call(
    agent: Agent, scratch: Scratch, meter: Meter, *, subagent: bool = False
) -> dict[str, Any]:
    """Kill while the fixture command runs — in the session's own call, or (``subagent``)
    in a subagent's call the session delegated — then resume the session."""
    label = "subagent" if subagent else "tool"
    home = scratch.home(label)
    home.root.mkdir(parents=True, exist_ok=True)
    home.layout.config_file.write_text(config_toml(agent.child_model()), encoding="utf-8")
    work = scratch.workdir(f"work-{label}")
    effects = work / "effects.log"
    (work / SCRIPT).write_text(
        f"echo $$ > {SCRIPT}.pid\necho start >> effects.log\n"
        + HOLD_WAIT.format(hold="hold")
        + "echo done >> effects.log\n",
        encoding="utf-8",
    )
    (work / "hold").touch()
    ask, again = (
        (DELEGATE_PREFIX + TOOL_TASK, DELEGATE_PREFIX + RESUME_ASK)
        if subagent
        else (TOOL_TASK, RESUME_ASK)
    )
    proc = _child(home, work, ask)
    started = _wait(lambda: "start" in _text(effects), proc)
    _kill(proc)
    outlived = end_orphan(work / f"{SCRIPT}.pid")
    (work / "hold").unlink()
    runs = _sessions(home, "run")
    session_id = runs[0].id if runs else ""
    code, output = (
        _finish(_child(home, work, "--resume", session_id, again))
        if runs
        else (-1, "no session was archived before the kill")
    )
    archive = Archive(home.layout.state_db)
    try:
        messages = archive.messages(session_id) if session_id else []
    finally:
        archive.close()
    starts = effects.read_text().count("start") if effects.exists() else 0
    interrupted = [m for m in messages if m.role == "tool" and (m.meta or {}).get("interrupted")]
    results: dict[str, int] = {}
    for m in messages:
        if m.role == "tool" and m.tool_call_id:
            results[m.tool_call_id] = results.get(m.tool_call_id, 0) + 1
    delegated = [m for m in messages if m.role == "tool" and m.tool_name == "delegate_task"]
    _spend(home, meter)
    found: dict[str, Any] = {
        "killed_mid_tool": started,
        "command_outlived_kill": outlived,
        "resumed_ok": code == 0,
        "resume_output": output.strip()[-300:] if code else "",
        "ask_kept": any(m.role == "user" and m.content == ask for m in messages),
        "dangling_call_answered": bool(interrupted),
        "results_delivered_twice": sum(1 for n in results.values() if n > 1),
        "side_effect_starts": starts,
        "side_effect_repeated": starts > 1,
        "partial_work_left": starts > 0
        and "done" not in (effects.read_text() if effects.exists() else ""),
    }
    if subagent:
        found["subagent_sessions"] = len(_sessions(home, "subagent"))
        found["subagent_results_in_parent"] = len(delegated)
        found["subagent_result_lost_but_said"] = any(
            (m.meta or {}).get("interrupted") for m in delegated
        )
    return found


def after_kill(home: Home, session_id: str) -> tuple[list[str], bool]:
    """(files changed in the home but not committed, whether the session's review lock is free)."""
    uncommitted = home.history.uncommitted() if home.history.available else []
    try:
        with try_lock(locks_dir(home.root) / f"review-{session_id}.lock"):
            return uncommitted, True
    except Busy:
        return uncommitted, False


def reviewed_through(home: Home, session_id: str) -> int:
    """The last message seq the session's memory review covered (0: none)."""
    from kenning.learning.background import META_KEY, ReviewState

    archive = Archive(home.layout.state_db)
    try:
        found = archive.session(session_id) if session_id else None
    finally:
        archive.close()
    meta = found.meta if found is not None else {}
    return ReviewState.from_dict((meta or {}).get(META_KEY)).cursor(["memory"])


def kill_during_review(agent: Agent, scratch: Scratch, meter: Meter) -> dict[str, Any]:
    home = scratch.home("review")
    home.root.mkdir(parents=True, exist_ok=True)
    config = config_toml(agent.child_model(), review_every=1)
    home.layout.config_file.write_text(config, encoding="utf-8")
    work = scratch.workdir("work-review")
    for name in ("a", "b"):
        lines = [f"INFO step {i}" if i % 3 else f"ERROR step {i}" for i in range(12)]
        (work / f"notes-{name}.log").write_text("\n".join(lines) + "\n", encoding="utf-8")
    agent.slow_reviews(True)
    proc = _child(home, work, "Task: read `notes-a.log` and tell me how many lines contain ERROR.")
    in_review = _wait(lambda: any(s.ended_at is None for s in _sessions(home, "review")), proc)
    _kill(proc)
    agent.slow_reviews(False)
    runs = _sessions(home, "run")
    session_id = runs[0].id if runs else ""
    archive = Archive(home.layout.state_db)
    try:
        first_turn_last = max((m.seq or 0 for m in archive.messages(session_id)), default=0)
    finally:
        archive.close()
    uncommitted, lock_free = after_kill(home, session_id)
    code, output = _finish(
        _child(
            home,
            work,
            "--resume",
            session_id,
            "Task: read `notes-b.log` and tell me how many lines contain ERROR.",
        )
    )
    reviews = _sessions(home, "review")
    cursor = reviewed_through(home, session_id)
    _spend(home, meter)
    return {
        "killed_mid_review": in_review,
        "nothing_half_landed": not uncommitted,
        "uncommitted_after_kill": uncommitted,
        "lock_free_after_kill": lock_free,
        "resumed_ok": code == 0,
        "resume_output": output.strip()[-300:] if code else "",
        "sessions": len(reviews),
        "completed_after_restart": any(s.ended_at is not None for s in reviews),
        "killed_range_reviewed_later": cursor >= first_turn_last > 0,
    }


# -- a goal run ---------------------------------------------------------------------------

RELEASES = ("1", "2", "3")
KILLED_RELEASE = "2"  # deployed in the goal's second turn: the kill lands in a later turn
GOAL = (
    "Deploy releases 1, 2 and 3, one per turn: run `sh deploy.sh N` for release N and record "
    "it with goal_progress. If a deploy was interrupted, do not start it again: finish it "
    "with `sh deploy.sh N --finish`."
)
GOAL_CHECK = "sh check.sh"
GOAL_MAX_TURNS = 6  # room for a resume that starts over, a bound on one that never ends
# One "start N" line per deploy started: the side effect the scenario counts. A release
# works while its hold-N file exists, so the kill lands inside its deploy; the pid file
# lets the scenario end the deploy the kill did not reach.
DEPLOY_SH = (
    """\
echo $$ > "deploy-$1.pid"
if [ "$2" = "--finish" ]; then
  grep -qx "start $1" effects.log || { echo "release $1 was never started"; exit 1; }
else
  echo "start $1" >> effects.log
fi
"""
    + HOLD_WAIT.format(hold="hold-$1")
    + """\
echo "done $1" >> effects.log
echo "release $1 deployed"
"""
)
CHECK_SH = "test \"$(grep '^done' effects.log | sort -u | wc -l)\" -ge 3\n"
_TURN = re.compile(r"^\[Goal mode, turn (?P<n>\d+) of")


def goal_turn(ask: str) -> int:
    """Which goal turn a user message of a goal run starts (0: not a goal message)."""
    if (found := _TURN.search(ask)) is not None:
        return int(found.group("n"))
    return 1 if "[Goal mode: you work on" in ask else 0


def stored_goal(home: Home, session_id: str) -> GoalState | None:
    if not session_id:
        return None
    archive = Archive(home.layout.state_db)
    try:
        found = archive.session(session_id)
    finally:
        archive.close()
    return GoalState.from_meta((found.meta if found is not None else {}).get(GOAL_META))


def kill_during_goal(
    agent: Agent,
    scratch: Scratch,
    meter: Meter,
    *,
    between: Callable[[Home, str], None] | None = None,
    kill_in: str = KILLED_RELEASE,
) -> dict[str, Any]:
    """Kill ``kenning run --goal`` inside release ``kill_in``'s deploy, then
    ``kenning run --resume ID``.

    ``between(home, session_id)`` runs after the kill, before the resume: tests use it
    to break what was stored, as a resume that forgot it would."""
    home = scratch.home("goal")
    home.root.mkdir(parents=True, exist_ok=True)
    home.layout.config_file.write_text(config_toml(agent.child_model()), encoding="utf-8")
    work = scratch.workdir("work-goal")
    (work / "deploy.sh").write_text(DEPLOY_SH, encoding="utf-8")
    (work / "check.sh").write_text(CHECK_SH, encoding="utf-8")
    hold = work / f"hold-{kill_in}"
    hold.touch()
    effects = work / "effects.log"
    goal_args = ("--goal", GOAL, "--check", GOAL_CHECK, "--max-turns", str(GOAL_MAX_TURNS))
    proc = _child(home, work, *goal_args)
    started = _wait(lambda: f"start {kill_in}" in _text(effects).split("\n"), proc)
    _kill(proc)
    outlived = end_orphan(work / f"deploy-{kill_in}.pid")
    hold.unlink(missing_ok=True)
    runs = _sessions(home, "run")
    session_id = runs[0].id if runs else ""
    before = stored_goal(home, session_id)
    # The truth about the run so far comes from the transcript, not from the goal's meta
    # (a goal mode that stored nothing would otherwise look consistent): the last ask is
    # the turn the kill cut off; the notes are the goal_progress calls archived.
    asks_at_kill, notes_at_kill = _transcript(home, session_id)
    asked_before = len(asks_at_kill)
    finished_before = max(0, asked_before - 1)
    if between is not None and session_id:
        between(home, session_id)
    code, output = (
        _finish(_child(home, work, "--resume", session_id))
        if session_id
        else (-1, "no session was archived before the kill")
    )
    after = stored_goal(home, session_id)
    asks = _transcript(home, session_id)[0]
    turns = [goal_turn(ask) for ask in asks]
    resumed_at = turns[asked_before] if len(turns) > asked_before else 0
    first_resumed = asks[asked_before:][:1]
    lines = _text(effects).splitlines()
    starts = {n: lines.count(f"start {n}") for n in RELEASES}
    _spend(home, meter)
    return {
        "killed_mid_goal_turn": started and finished_before >= 1,
        "turns_finished_before_kill": finished_before,
        "progress_stored_at_kill": before is not None
        and before.turns == finished_before
        and before.notes == notes_at_kill,
        "command_outlived_kill": outlived,
        "resumed_ok": code == 0,
        "resume_exit_code": code,
        "resume_output": output.strip()[-300:] if code else "",
        "goal_kept": after is not None and after.goal == GOAL and GOAL in "".join(first_resumed),
        "resumed_at_turn": resumed_at,
        "progress_kept": resumed_at == finished_before + 1
        and all(note in "".join(first_resumed) for note in notes_at_kill),
        "turns_repeated": sum(turns.count(n) - 1 for n in set(turns) if 0 < n <= finished_before),
        "turns_run": len(turns),
        "side_effect_starts": sum(starts.values()),
        "side_effects_repeated": sum(max(0, count - 1) for count in starts.values()),
        "releases_done": sum(1 for n in RELEASES if f"done {n}" in lines),
        "final_status": after.status if after is not None else "no goal",
        "final_turns": after.turns if after is not None else 0,
    }


def _transcript(home: Home, session_id: str) -> tuple[list[str], list[str]]:
    """The session's user messages, and the notes of its ``goal_progress`` calls."""
    if not session_id:
        return [], []
    archive = Archive(home.layout.state_db)
    try:
        messages = archive.messages(session_id)
    finally:
        archive.close()
    notes = [
        str(json.loads(call.get("arguments") or "{}").get("note", "")).strip()
        for m in messages
        if m.role == "assistant"
        for call in m.tool_calls or []
        if call.get("name") == PROGRESS_TOOL
    ]
    return [m.content for m in messages if m.role == "user"], notes


def run(agent: Agent, scratch: Scratch, meter: Meter, seed: int) -> Outcome:
    tool = kill_during_tool_call(agent, scratch, meter)
    sub = kill_during_tool_call(agent, scratch, meter, subagent=True)
    review = kill_during_review(agent, scratch, meter)
    goal = kill_during_goal(agent, scratch, meter)
    out = Outcome()
    out.metrics = {
        **{f"tool_{k}": v for k, v in tool.items()},
        **{f"subagent_{k}": v for k, v in sub.items() if not k.startswith("subagent_")},
        **{k: v for k, v in sub.items() if k.startswith("subagent_")},
        **{f"review_{k}": v for k, v in review.items()},
        **{f"goal_{k}": v for k, v in goal.items()},
    }
    out.check("tool_killed_mid_call", tool["killed_mid_tool"], "the kill landed inside the call")
    out.check("tool_resumed", tool["resumed_ok"] and tool["ask_kept"], "the session resumes")
    out.check("tool_call_answered", tool["dangling_call_answered"], "the dangling call is answered")
    out.check("tool_no_repeat", not tool["side_effect_repeated"], "the side effect ran once")
    out.check("subagent_killed_mid_call", sub["killed_mid_tool"], "the kill landed in its call")
    out.check(
        "subagent_resumed",
        sub["resumed_ok"] and sub["dangling_call_answered"],
        "the parent resumes; its delegate call is answered as interrupted",
    )
    out.check(
        "subagent_not_delivered_twice",
        sub["results_delivered_twice"] == 0,
        "no call gets two results",
    )
    out.check("subagent_no_repeat", not sub["side_effect_repeated"], "the side effect ran once")
    out.check("review_killed_mid_review", review["killed_mid_review"], "the kill landed inside")
    out.check("review_atomic", review["nothing_half_landed"], "a killed review lands nothing")
    out.check("review_lock_released", review["lock_free_after_kill"], "no stale lock")
    out.check(
        "review_retried",
        review["completed_after_restart"] and review["killed_range_reviewed_later"],
        "the next review completes and covers what the killed one did not",
    )
    check_goal(out, goal)
    out.check(
        "command_ended_with_kenning",
        not any(part["command_outlived_kill"] for part in (tool, sub, goal)),
        "a SIGKILL of Kenning ends the shell command it was running",
    )
    if any(part["command_outlived_kill"] for part in (tool, sub, goal)):
        out.notes.append(
            "a SIGKILL of Kenning left the shell command it was running alive; the scenario "
            "ended it, as a machine crash would"
        )
    return out


def check_goal(out: Outcome, goal: dict[str, Any]) -> None:
    out.check(
        "goal_killed_mid_turn",
        goal["killed_mid_goal_turn"],
        "the kill landed in a tool call of a later turn",
    )
    out.check(
        "goal_resumed",
        goal["resumed_ok"] and goal["goal_kept"],
        "`kenning run --resume ID` goes on with the stored goal",
    )
    out.check(
        "goal_progress_kept",
        goal["progress_kept"],
        "the resume starts at the next turn, with the notes made before the kill",
    )
    out.check("goal_no_turn_repeated", goal["turns_repeated"] == 0, "no finished turn runs again")
    out.check("goal_no_repeat", goal["side_effects_repeated"] == 0, "no deploy started twice")
    out.check(
        "goal_done",
        goal["final_status"] == DONE_CHECKED and goal["releases_done"] == len(RELEASES),
        f"the goal ends {DONE_CHECKED!r} with every release deployed",
    )


SCENARIO = Scenario(
    key="recovery",
    number=4,
    title="Recovery across processes",
    measures="kenning",
    why="what survives a SIGKILL of `kenning run` mid-tool-call, mid-subagent, mid-review "
    "and mid-goal",
    run=run,
)
