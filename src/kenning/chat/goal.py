"""``/goal GOAL [--check CMD]`` in chat: the current session works on a goal in turns.

Kept out of ``chat.commands`` (which only maps the command here): the policy is
``kenning.agent.goal``'s, the same as ``kenning run --goal``; this renders its
events compactly and lets Ctrl-C stop the run between or inside turns.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal

from rich.console import Console
from rich.markdown import Markdown

from kenning.agent import goal as goals
from kenning.agent.events import Notice, ToolFinished, ToolStarted, TurnEnded, describe_call
from kenning.agent.loop import AgentSession

USAGE = "usage: /goal GOAL [--check CMD]  (e.g. /goal make the tests pass --check pytest -q)"


def parse(arg: str) -> tuple[str, str]:
    """The goal and the check command ("" for none)."""
    goal, _, check = arg.partition("--check")
    return goal.strip(), check.strip()


async def chat_goal(session: AgentSession, console: Console, arg: str) -> None:
    goal, check = parse(arg)
    if not goal:
        console.print(USAGE)
        return
    existing = goals.load(session)
    if existing is not None and not existing.finished:
        console.print(f"[yellow]this session already works on a goal: {existing.goal}[/]")
        return
    agent = session.home.config.agent
    state = goals.GoalState(
        goal,
        check=check,
        budget=goals.Budget(max_turns=agent.goal_max_turns, max_idle_turns=agent.goal_idle_turns),
    )
    task = asyncio.create_task(_render(session, console, state, agent.goal_check_timeout_s))
    loop = asyncio.get_running_loop()
    with contextlib.suppress(NotImplementedError, RuntimeError):
        loop.add_signal_handler(signal.SIGINT, task.cancel)
    try:
        await task
    except asyncio.CancelledError:
        console.print(f"\n[yellow]goal interrupted[/] after {state.turns} turn(s); it is saved")
    finally:
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.remove_signal_handler(signal.SIGINT)


async def _render(
    session: AgentSession, console: Console, state: goals.GoalState, check_timeout_s: float
) -> None:
    async for event in goals.run_goal(session, state, check_timeout_s=check_timeout_s):
        if isinstance(event, ToolStarted):
            console.print(f"[dim]→ {describe_call(event.call)}[/]", highlight=False)
        elif isinstance(event, ToolFinished) and not event.ok:
            first = (event.result.splitlines() or ["failed"])[0]
            console.print(f"[red dim]  ✗ {first[:200]}[/]", highlight=False)
        elif isinstance(event, Notice):
            console.print(f"[yellow]{event.text}[/]", highlight=False)
        elif isinstance(event, TurnEnded):
            if event.answer:
                console.print(Markdown(event.answer))
            console.print(f"[dim]— goal turn {state.turns} —[/]")
        elif isinstance(event, goals.GoalEnded):
            colour = "green" if event.status.startswith("done") else "yellow"
            console.print(f"[{colour}]{goals.describe_end(event)}[/]", highlight=False)
