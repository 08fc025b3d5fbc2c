"""Scenario 5 — correction and isolation.

A wrong conclusion is saved with its source (a CI log in the work folder),
then explicitly corrected with a new source. Then, what each viewer sees:
a new session of the same profile, a session of another profile, and a
``kenning mcp --read-only`` client (a real subprocess, the SDK's client) —
which must also fail to write. Finally the fact is deleted, and the report
says what remains in live memory versus the raw history (the session
archive and git history keep everything; memory must not).

Measured: saved with its source; the corrected entry's source; what each
viewer sees (new value, stale value, nothing); whether the read-only client's
write was refused and the home left unchanged; after deletion: live memory,
archive hits, git versions, and where a new session's answer then comes from.
With the scripted agent this measures Kenning: memory replace and remove,
profile homes, the read-only server, the archive.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import random
from pathlib import Path
from typing import Any

from kenning.evals.harness import Agent, Conversation, Meter, Outcome, Scenario, Scratch, source_of
from kenning.home import Home
from kenning.memory.store import Target

SUBJECT = "the flaky test"
TESTS = (
    "test_payments_timeout",
    "test_refund_retry",
    "test_invoice_rounding",
    "test_login_throttle",
    "test_export_csv_encoding",
    "test_webhook_signature",
)


def conclusions(seed: int) -> tuple[tuple[str, str], tuple[str, str]]:
    """((wrong test, its log), (right test, its log)), the same for the same seed."""
    rng = random.Random(f"correction:{seed}")
    wrong, right = rng.sample(TESTS, 2)
    run = rng.randint(1000, 8999)
    return (wrong, f"ci/run-{run}.log"), (right, f"ci/run-{run + rng.randint(3, 40)}.log")


def fixture(work: Path, wrong: tuple[str, str], right: tuple[str, str]) -> None:
    for name, log in (wrong, right):
        path = work / log
        path.parent.mkdir(parents=True, exist_ok=True)
        lines = [f"PASSED tests/test_{i}.py" for i in range(5)]
        lines += [f"FAILED tests/test_ci.py::{name} (1 of 3 attempts)", f"flaky: {name}"]
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def memory_text(home: Home) -> str:
    entries = [e for t in (Target.MEMORY, Target.USER) for e in home.memory.read(t).entries]
    return "\n".join(entries)


def fingerprint(home: Home) -> str:
    """Every file of the home's memory, journal and state (what a write would change)."""
    digest = hashlib.sha256()
    for path in sorted(home.root.rglob("*")):
        if path.is_file() and ".git" not in path.parts and "profiles" not in path.parts:
            digest.update(str(path.relative_to(home.root)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


async def read_only_view(home: Home, *, read_only: bool = True) -> dict[str, Any]:
    """What a ``kenning mcp --read-only`` client sees of ``home``; whether a write is refused."""
    from kenning.mcp.client import payload, stdio_params, stdio_session

    args = ("--read-only",) if read_only else ()
    env = {"KENNING_EMBEDDING__PROVIDER": "none"}
    with open(os.devnull, "w", encoding="utf-8") as errlog:
        params = stdio_params(home.root, *args, env=env)
        async with stdio_session(params, errlog=errlog) as client:
            show = payload(await client.call_tool("memory", {"action": "show", "target": "memory"}))
            found = payload(await client.call_tool("memory_search", {"query": SUBJECT}))
            history = payload(await client.call_tool("session_search", {"query": SUBJECT}))
            write = await client.call_tool(
                "memory",
                {"action": "add", "target": "memory", "content": "The MCP client wrote this."},
            )
    written = payload(write) if write.content else {}
    return {
        "show": json.dumps(show, ensure_ascii=False),
        "memory_search": json.dumps(found, ensure_ascii=False),
        "session_search": json.dumps(history, ensure_ascii=False),
        "write_refused": bool(write.is_error) or not written.get("success", False),
    }


def archive_hits(home: Home, value: str) -> int:
    """Archived messages (raw history) that still carry ``value``."""
    result = home.search.search(value, kinds=("message",), limit=20)
    return sum(1 for hit in result.hits if value in (hit.content or ""))


def git_versions(home: Home, value: str) -> int:
    path = f"memories/{Target.MEMORY.filename}"
    return sum(
        1
        for c in home.history.log([path], limit=200)
        if value in (home.history.show(c.rev, path) or "")
    )


async def _run(
    agent: Agent, scratch: Scratch, meter: Meter, seed: int, *, read_only: bool
) -> Outcome:
    (wrong, wrong_log), (right, right_log) = conclusions(seed)
    home, other = scratch.home(), scratch.home("other")
    work = scratch.workdir()
    fixture(work, (wrong, wrong_log), (right, right_log))
    out = Outcome()
    question = f"Question: what is {SUBJECT}? Answer with the exact test name."

    async def session(on: Home, text: str) -> tuple[str, Conversation]:
        conversation = Conversation(on, agent, meter, cwd=work)
        turn = await conversation.say(text)
        await conversation.close()
        return turn.answer, conversation

    await session(
        home,
        "Remember this for future sessions: which test is flaky, as the CI log at "
        f"`{wrong_log}` shows. Read it first, then save the conclusion with its source.",
    )
    saved = memory_text(home)
    await session(
        home,
        f"Correction: {SUBJECT} is `{right}`, not `{wrong}` — see `{right_log}`. "
        "Update what you remember, with the new source.",
    )
    corrected = memory_text(home)
    same_answer, same = await session(home, question)
    other_answer, _ = await session(other, question)
    before = fingerprint(home)
    mcp = await read_only_view(home, read_only=read_only)
    mcp_changed = fingerprint(home) != before
    await session(home, f"Forget what you remember about {SUBJECT}.")
    after = memory_text(home)
    after_mcp = await read_only_view(home)
    later = Conversation(home, agent, meter, cwd=work)
    later_turn = await later.say(question)
    await later.close()
    leaked = any(v in other_answer or v in memory_text(other) for v in (wrong, right))
    out.metrics = {
        "conclusion": f"{wrong} ({wrong_log}) → {right} ({right_log})",
        "saved_with_source": wrong in saved and wrong_log in saved,
        "corrected_with_source": right in corrected and right_log in corrected,
        "stale_in_memory_after_correction": wrong in corrected,
        "same_profile_new_session": _sees(same_answer, right, wrong),
        "same_profile_answer_source": source_of(same.turns[-1], right, same.system_prompt),
        "other_profile": _sees(other_answer, right, wrong),
        "mcp_read_only_memory": _sees(mcp["show"] + mcp["memory_search"], right, wrong),
        "mcp_read_only_write_refused": mcp["write_refused"],
        "mcp_read_only_home_unchanged": not mcp_changed,
        "memory_after_delete": _sees(after, right, wrong),
        "mcp_memory_after_delete": _sees(
            after_mcp["show"] + after_mcp["memory_search"], right, wrong
        ),
        "mcp_raw_history_after_delete": _sees(after_mcp["session_search"], right, wrong),
        "archive_messages_after_delete": archive_hits(home, right) + archive_hits(home, wrong),
        "git_versions_after_delete": git_versions(home, right) + git_versions(home, wrong),
        "new_session_after_delete_source": source_of(later_turn, right, later.system_prompt),
    }
    hits = out.metrics["archive_messages_after_delete"]
    if hits and out.metrics["mcp_raw_history_after_delete"] == "nothing":
        out.notes.append(
            f"the archive holds {hits} message(s) with the fact, but the read-only MCP client's "
            "session_search found none: a read-only server cannot update the search index, so it "
            "sees only what a writable search indexed before"
        )
    out.check("saved_with_source", out.metrics["saved_with_source"], "the conclusion names its log")
    out.check(
        "corrected",
        right in corrected and wrong not in corrected,
        "memory holds only the new value",
    )
    out.check(
        "new_session_sees_new",
        same_answer.count(right) > 0 and wrong not in same_answer,
        "a new session of the profile answers the corrected value",
    )
    out.check("no_leak", not leaked, "the other profile knows neither value")
    out.check(
        "mcp_sees_new_only",
        out.metrics["mcp_read_only_memory"] == "new",
        "the read-only client's memory views show only the new value",
    )
    out.check("mcp_write_refused", mcp["write_refused"], "the read-only client cannot write")
    out.check("mcp_home_unchanged", not mcp_changed, "the read-only client changed nothing")
    out.check(
        "deleted_from_memory",
        right not in after and wrong not in after,
        "after deletion live memory holds neither value",
    )
    out.check(
        "raw_history_kept",
        out.metrics["archive_messages_after_delete"] > 0,
        "the session archive still has the conversations (raw history is not rewritten)",
    )
    return out


def _sees(text: str, new: str, old: str) -> str:
    """What a view shows of the fact: new, stale, both or nothing."""
    has_new, has_old = new in text, old in text
    return (
        "both" if has_new and has_old else "new" if has_new else "stale" if has_old else "nothing"
    )


def run_with(
    agent: Agent, scratch: Scratch, meter: Meter, seed: int, *, read_only: bool = True
) -> Outcome:
    """``read_only=False`` starts the MCP server writable: the setup tests break on purpose."""
    return asyncio.run(_run(agent, scratch, meter, seed, read_only=read_only))


def run(agent: Agent, scratch: Scratch, meter: Meter, seed: int) -> Outcome:
    return run_with(agent, scratch, meter, seed)


SCENARIO = Scenario(
    key="correction",
    number=5,
    title="Correction and isolation",
    measures="kenning",
    why="what memory replace/remove, profiles, the read-only MCP server and the archive "
    "let each viewer see",
    run=run,
)
