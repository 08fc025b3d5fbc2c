"""Scenario 2 — procedural learning: does a corrected mistake become a skill that is used?

The fixture repository ``converters`` (``kenning.evals.fixtures``) has a trap:
a new converter needs a function *and* a registry entry. The first task (add
one converter) meets it — its test fails with ``KeyError`` until the agent
registers the function — then come tasks of the same kind with different
parameters, each in a new session. The whole sequence runs twice from the
same initial state: with the background review on (a skill review after a
few model requests) and off.

Measured per variant: skill created? used (``skill_view``) on the later
tasks? repeated errors (later tasks whose first test run failed), success
rate (the checker runs the repository's tests itself), requests, tokens and
time. With a real model this measures the model too: whether it falls into
the trap, whether its review writes a skill, whether it reads the skill.
"""

from __future__ import annotations

import asyncio
import random
import time
from dataclasses import replace
from typing import Any

from kenning.evals.fixtures import converters, materialise
from kenning.evals.harness import Agent, Conversation, Meter, Outcome, Scenario, Scratch
from kenning.evals.harness import scratch_config as base_config
from kenning.home import Home

TASKS = 4  # the first, with the correction, then three of the same kind
SKILL_REVIEW_EVERY = 4  # model requests; the default is 10, more than one short task makes


def tasks(seed: int) -> list[tuple[str, float]]:
    return random.Random(f"procedural:{seed}").sample(converters.CONVERTERS, TASKS)


def ask(name: str, factor: float) -> str:
    return (
        f"Task: in this repository add a unit converter `{name}` (value × {factor}) so that "
        f'`convert(value, "{name}")` works, then run the tests with '
        f"`{converters.test_command()}` until they pass."
    )


def skills_of(home: Home) -> list[str]:
    folder = home.layout.skills_dir
    if not folder.is_dir():
        return []
    return sorted(p.name for p in folder.iterdir() if (p / "SKILL.md").is_file())


async def _variant(
    agent: Agent, scratch: Scratch, meter: Meter, seed: int, *, review: bool
) -> dict[str, Any]:
    label = "review_on" if review else "review_off"
    config = base_config()
    config = replace(
        config,
        review=replace(config.review, skills_every_iterations=SKILL_REVIEW_EVERY if review else 0),
    )
    home = scratch.home(label, config=config)
    repo = materialise(converters.FILES, scratch.workdir(f"repo-{label}"))
    command = converters.test_command()

    async def approve(request: Any) -> bool:
        """The user approves running the tests, and nothing else."""
        return bool(getattr(request, "command", request) == command)

    requests, tokens, started = meter.requests, meter.usage, time.monotonic()
    rows: list[dict[str, Any]] = []
    skills_before = skills_of(home)
    for name, factor in tasks(seed):
        converters.task_test(repo, name, factor)
        conversation = Conversation(home, agent, meter, cwd=repo, approve=approve)
        turn = await conversation.say(ask(name, factor))
        await conversation.close()  # waits for a background review this session started
        runs = [result for _, _, result in turn.called("shell")]
        rows.append(
            {
                "task": name,
                "used_skill": bool(turn.called("skill_view")),
                "first_run_failed": bool(runs) and "KeyError" in runs[0],
                "passed": converters.tests_pass(repo),
            }
        )
    later = rows[1:]
    created = [s for s in skills_of(home) if s not in skills_before]
    spent = meter.usage
    return {
        "skills_created": created,
        "skill_created": bool(created),
        "later_tasks_using_skill": sum(1 for r in later if r["used_skill"]),
        "first_task_corrected": rows[0]["first_run_failed"] and rows[0]["passed"],
        "repeated_errors": sum(1 for r in later if r["first_run_failed"]),
        "success_rate": round(sum(1 for r in rows if r["passed"]) / len(rows), 3),
        "requests": meter.requests - requests,
        "tokens": spent.input_tokens
        + spent.output_tokens
        - tokens.input_tokens
        - tokens.output_tokens,
        "seconds": round(time.monotonic() - started, 3),
        "tasks": [r["task"] for r in rows],
    }


async def _run(agent: Agent, scratch: Scratch, meter: Meter, seed: int) -> Outcome:
    on = await _variant(agent, scratch, meter, seed, review=True)
    off = await _variant(agent, scratch, meter, seed, review=False)
    out = Outcome()
    out.metrics = {
        "tasks": ", ".join(on["tasks"]),
        **{f"on_{k}": v for k, v in on.items() if k != "tasks"},
        **{f"off_{k}": v for k, v in off.items() if k != "tasks"},
    }
    later = TASKS - 1
    out.check("skill_created", on["skill_created"], "review on: the correction became a skill")
    out.check(
        "skill_used",
        on["later_tasks_using_skill"] == later,
        "review on: every later task opened the skill",
    )
    out.check("no_repeats_with_review", on["repeated_errors"] == 0, "review on: no repeated error")
    out.check("off_writes_no_skill", not off["skill_created"], "review off: no skill appears")
    out.check(
        "all_tasks_pass",
        on["success_rate"] == 1.0 and off["success_rate"] == 1.0,
        "every task ends with the tests passing, both variants",
    )
    if not on["first_task_corrected"]:
        out.notes.append("the first task did not need the correction: nothing to learn from")
    return out


def run(agent: Agent, scratch: Scratch, meter: Meter, seed: int) -> Outcome:
    return asyncio.run(_run(agent, scratch, meter, seed))


SCENARIO = Scenario(
    key="procedural",
    number=2,
    title="Procedural learning",
    measures="kenning+model",
    why="whether a corrected mistake becomes a skill the later tasks use, review on vs off",
    run=run,
)
