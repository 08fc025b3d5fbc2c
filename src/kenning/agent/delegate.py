"""``delegate_task``: hand a self-contained piece of work to a subagent.

The subagent starts from a fresh context — a short system prompt (identity,
the user's standing rules, the environment) and one user message holding the
goal and the background the parent chose to pass — so the parent's long
history does not ride along. It runs as its own archived session (source
``subagent``, linked to the parent), with memory writes disabled, no further
delegation (depth 1), its own iteration cap, and at most
``agent.subagent_max_concurrent`` running at once per parent. Its answer is
cut to what the parent's remaining window can take; the full text stays in
the archive.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace

from kenning import clock
from kenning.agent.events import TurnEnded
from kenning.agent.loop import AgentSession
from kenning.prompt.rules import load_rules, render_rules
from kenning.prompt.system import DEFAULT_IDENTITY, environment_block
from kenning.tools.base import Access, Tool, ToolContext, ToolError

# Tools a subagent never gets: no recursion, no durable writes to the
# parent's memory layers (it can still read them).
WITHHELD = frozenset({"delegate_task", "skill_manage", "python"})
# A conservative characters-per-token ratio for cutting the answer (CJK text
# runs near 1 char/token, so this errs on the side of a shorter answer).
CHARS_PER_TOKEN = 3
MAX_ANSWER_CHARS = 40_000
MIN_ANSWER_CHARS = 1_500

SUBAGENT_ROLE = (
    "You are a subagent: another agent gave you one task. You have a fresh context — "
    "only the goal and background below. Work with your tools until the task is done, "
    "then answer with a complete, self-contained report of what you found or did "
    "(the other agent sees only your final answer). You cannot write long-term memory."
)


async def delegate_task(goal: str, ctx: ToolContext, background: str = "") -> str:
    """Run a subagent on a self-contained task and return its final report.

    Use it for work that needs many steps but whose result is short: a
    research question, a search through many files, a focused change in one
    place. The subagent sees only what you pass: put everything it needs
    (paths, names, constraints, what "done" means) in the goal and background.
    Up to 3 can run at once when you call this tool several times in one turn.

    Args:
        goal: What the subagent must achieve, as a complete instruction.
        background: Facts, constraints and context it needs; it cannot see this conversation.
    """
    parent = ctx.extras.get("agent")
    if not isinstance(parent, AgentSession):
        raise ToolError("delegate_task needs a running agent session", "do the task yourself")
    if parent.depth >= 1:
        raise ToolError("a subagent cannot delegate further", "do the task yourself")
    if not goal.strip():
        raise ToolError("the goal is empty", "say what the subagent must achieve")
    child_id, message, ended = await run_subagent(parent, goal, background)
    if parent.memory_providers is not None:  # the subagent itself consults no provider
        result = ended.answer if ended.reason == "final" else ended.error or ended.reason
        parent.memory_providers.delegated(message, result, child_session_id=child_id)
    return _report(
        child_id,
        ended.reason,
        ended.iterations,
        ended.answer,
        ended.error,
        _answer_budget(parent),
    )


async def run_subagent(
    parent: AgentSession, goal: str, background: str = ""
) -> tuple[str, str, TurnEnded]:
    """Run one subagent to its end: its session id, the message it got, how it ended.

    Shared by ``delegate_task`` and the Python workspace's ``kenning.delegate``.
    """
    agent_cfg = parent.home.config.agent
    gate = parent.extras.setdefault(
        "subagent_gate", asyncio.Semaphore(max(1, agent_cfg.subagent_max_concurrent))
    )
    tools = parent.tools.restricted(
        [n for n in parent.tools.names() if n not in WITHHELD], label="subagent"
    )
    settings = replace(
        parent.settings,
        source="subagent",
        memory_writable=False,
        max_iterations=agent_cfg.subagent_max_iterations,
        stream=False,
    )
    async with gate:
        child = AgentSession.start(
            parent.home,
            parent.model,
            tools,
            cwd=parent.cwd,
            settings=settings,
            parent_id=parent.session_id,
            system_prompt=_subagent_prompt(parent),
            depth=parent.depth + 1,
            # The subagent acts with the user's say: the same approver and the
            # chat's permission mode, so delegating cannot get round either.
            approve=parent.approve,
        )
        if "permissions" in parent.extras:
            child.extras["permissions"] = parent.extras["permissions"]
        message = goal.strip()
        if background.strip():
            message += f"\n\n## Background\n{background.strip()}"
        ended = await child.run(message)
        await child.close(f"subagent {ended.reason}")
    return child.session_id, message, ended


def _subagent_prompt(parent: AgentSession) -> str:
    rules = load_rules(
        parent.home.layout, parent.cwd, max_file_chars=parent.home.config.rules.max_file_chars
    )
    parts = [DEFAULT_IDENTITY, SUBAGENT_ROLE]
    if rules:
        parts.append(render_rules(rules).strip())
    parts.append(environment_block(parent.cwd, clock.now().astimezone()))
    return "\n\n".join(parts) + "\n"


def _answer_budget(parent: AgentSession) -> int:
    """Characters of answer the parent's remaining window can take (half of what is left)."""
    window = parent.model.context_window - parent.home.config.model.max_output_tokens
    left = max(0, window - parent.context_tokens)
    return max(MIN_ANSWER_CHARS, min(MAX_ANSWER_CHARS, left * CHARS_PER_TOKEN // 2))


def _report(
    session_id: str, reason: str, steps: int, answer: str, error: str | None, budget: int
) -> str:
    head = f"Subagent session {session_id} ended ({reason}) after {steps} model request(s)."
    if reason != "final":
        detail = error or "it gave no final answer"
        return f"{head}\nIt did not finish: {detail}\nTry a smaller goal or do it yourself."
    body = answer.strip() or "(the subagent's final answer was empty)"
    if len(body) > budget:
        body = (
            body[:budget]
            + f"\n[… answer cut to {budget:,} of {len(answer):,} characters to fit your context. "
            f"The full text is in the archive: session_search with session_id={session_id}.]"
        )
    return f"{head}\n\n{body}"


def delegate_tool() -> Tool:
    # Subagents of one batch run side by side (the gate bounds how many): the
    # parent chose to split the work, so they are not serialised like writes.
    return Tool.from_function(delegate_task, toolset="agent", access=lambda args, ctx: Access.NONE)
