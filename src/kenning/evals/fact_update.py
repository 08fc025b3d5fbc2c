"""Scenario 1 — preference and fact update, across sessions and profiles.

Session A states a fact; a new session B must use it; session C corrects it;
a new session D must use the new version. Then a session on another profile
asks the same question: the fact must not leak there.

Measured:
- where A's fact was written: the layer (hot memory ``memory``/``user``, the
  journal, or nowhere) and the entry;
- its versions in the home's git history (``kenning.history``): how many
  commits touched the entry's file with the value, and whether the old value
  is still recoverable from history after the correction;
- where D's answer came from (hot memory, search, context, none);
- new-fact adoption (D answers the new value) and stale-fact residue (the old
  value in D's answer, or still in live memory);
- isolation: neither value in the other profile's answer or memory.

With a real model this measures the model too: whether it saves, replaces
rather than appends, and reads its memory.
"""

from __future__ import annotations

import asyncio
import random

from kenning.evals.harness import Agent, Conversation, Meter, Outcome, Scenario, Scratch, source_of
from kenning.home import Home
from kenning.memory.store import Target

SUBJECTS = (
    "the staging database port",
    "the release branch name",
    "the on-call pager alias",
    "the build cache bucket",
)


def facts(seed: int) -> tuple[str, str, str]:
    """(subject, first value, corrected value), the same for the same seed."""
    rng = random.Random(f"fact-update:{seed}")
    subject = rng.choice(SUBJECTS)
    if "port" in subject:
        first, second = str(rng.randint(5000, 5999)), str(rng.randint(7000, 7999))
    else:
        first = f"{subject.split()[-2]}-{rng.randint(100, 499)}"
        second = f"{subject.split()[-2]}-{rng.randint(500, 999)}"
    return subject, first, second


def layer_of(home: Home, value: str) -> tuple[str, str]:
    """(layer, entry) where ``value`` lives now: memory, user, journal or none."""
    for target in (Target.MEMORY, Target.USER):
        for entry in home.memory.read(target).entries:
            if value in entry:
                return target.value, entry
    journal = home.layout.journal_dir
    if journal.exists():
        for path in sorted(journal.rglob("*.md")):
            for line in path.read_text(encoding="utf-8").splitlines():
                if value in line:
                    return "journal", line.strip()
    return "none", ""


def history_versions(home: Home, path: str, value: str) -> list[str]:
    """Commits of ``path`` whose version of the file contains ``value``."""
    return [
        c.rev
        for c in home.history.log([path], limit=200)
        if value in (home.history.show(c.rev, path) or "")
    ]


def live_text(home: Home) -> str:
    return "\n".join(
        entry
        for target in (Target.MEMORY, Target.USER)
        for entry in home.memory.read(target).entries
    )


async def _run(agent: Agent, scratch: Scratch, meter: Meter, seed: int) -> Outcome:
    subject, old, new = facts(seed)
    home, other = scratch.home(), scratch.home("other")
    work = scratch.workdir()
    out = Outcome()
    question = f"Question: what is {subject}? Answer in one short sentence with the exact value."

    async def session(on: Home, text: str) -> tuple[str, str, Conversation]:
        conversation = Conversation(on, agent, meter, cwd=work)
        turn = await conversation.say(text)
        await conversation.close()
        return turn.answer, conversation.system_prompt, conversation

    cap = subject[0].upper() + subject[1:]
    await session(home, f"Remember this for future sessions: {cap} is `{old}`.")
    layer, entry = layer_of(home, old)
    b_answer, _, _ = await session(home, question)
    await session(
        home, f"Correction: {subject} is `{new}` now, not `{old}`. Update what you remember."
    )
    conversation = Conversation(home, agent, meter, cwd=work)
    d_turn = await conversation.say(question)
    await conversation.close()
    d_source = source_of(d_turn, new, conversation.system_prompt)
    o_answer, _, _ = await session(other, question)

    file = f"memories/{Target(layer).filename}" if layer in ("memory", "user") else ""
    old_versions = history_versions(home, file, old) if file else []
    new_versions = history_versions(home, file, new) if file else []
    live = live_text(home)
    leaked = any(v in o_answer or v in live_text(other) for v in (old, new))
    out.metrics = {
        "fact": f"{subject}: {old} → {new}",
        "written_layer": layer,
        "written_entry": entry,
        "history_versions_old": len(old_versions),
        "history_versions_new": len(new_versions),
        "old_recoverable_from_history": bool(old_versions),
        "b_answer": b_answer,
        "d_answer": d_turn.answer,
        "d_answer_source": d_source,
        "new_fact_adopted": new in d_turn.answer,
        "stale_in_answer": old in d_turn.answer,
        "stale_in_memory": old in live,
        "leaked_to_other_profile": leaked,
    }
    out.check("written", layer != "none", "A's fact lands in a memory layer")
    out.check("b_uses_fact", old in b_answer, "session B answers with A's value")
    out.check(
        "versioned", bool(old_versions) and bool(new_versions), "both versions in git history"
    )
    out.check("d_adopts_new", new in d_turn.answer, "session D answers the corrected value")
    out.check("d_no_stale", old not in d_turn.answer, "D's answer does not carry the old value")
    out.check("memory_no_stale", old not in live, "live memory no longer holds the old value")
    out.check("d_from_memory", d_source in ("hot memory", "search"), "D's value came from memory")
    out.check("no_leak", not leaked, "the other profile neither knows nor says either value")
    return out


def run(agent: Agent, scratch: Scratch, meter: Meter, seed: int) -> Outcome:
    return asyncio.run(_run(agent, scratch, meter, seed))


SCENARIO = Scenario(
    key="fact-update",
    number=1,
    title="Preference and fact update",
    measures="kenning+model",
    why="whether the agent saves, replaces and reads back a fact: the model's judgement "
    "as much as Kenning's memory, history and profile isolation",
    run=run,
)
