"""``kenning bench hosts``: what a Claude Code hook costs the host, on a long transcript.

On a temporary home and HOME, with a transcript of ``lines`` lines (a real
session's shape: prompts, replies, tool calls and results), it measures:

* ``hook``: the installed hook command, run as Claude Code runs it (``sh -c``,
  the event JSON on stdin), from start to exit — what the host waits for.
  Between runs two lines are appended and the detached worker is waited for,
  so each run is a real turn with a real worker behind it.
* ``pass``: the worker's archiving step on its own, in-process: reading the
  new lines after the stored offset and appending them (what grows with the
  transcript if anything does).
* ``first_pass``: archiving the whole transcript once, as after installing
  in the middle of a long session.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from kenning.bench.stats import p50_p95
from kenning.home import Home

SESSION = "5b0c7d1e-3f2a-4b6c-8d9e-0a1b2c3d4e5f"


def transcript_lines(start: int, count: int) -> list[str]:
    """``count`` transcript lines of one session, numbered from ``start``."""
    out = []
    for n in range(start, start + count):
        base = {"sessionId": SESSION, "uuid": f"u-{n}", "isSidechain": False}
        base["timestamp"] = f"2026-11-30T{(n // 3600) % 24:02d}:{(n // 60) % 60:02d}:{n % 60:02d}Z"
        kind = n % 4
        if kind == 0:
            event = {
                **base,
                "type": "user",
                "message": {"role": "user", "content": f"Step {n}: run the tests"},
            }
        elif kind == 1:
            call = {
                "type": "tool_use",
                "id": f"toolu_{n}",
                "name": "Bash",
                "input": {"command": "pytest -q"},
            }
            message = {
                "id": f"msg_{n}",
                "role": "assistant",
                "model": "claude-sonnet-4-5",
                "content": [call],
            }
            event = {**base, "type": "assistant", "message": message}
        elif kind == 2:
            result = {
                "type": "tool_result",
                "tool_use_id": f"toolu_{n - 1}",
                "content": "12 passed",
            }
            event = {**base, "type": "user", "message": {"role": "user", "content": [result]}}
        else:
            text = {"type": "text", "text": f"All {n} tests pass; the change is in place."}
            message = {
                "id": f"msg_{n}",
                "role": "assistant",
                "model": "claude-sonnet-4-5",
                "content": [text],
            }
            event = {**base, "type": "assistant", "message": message}
        out.append(json.dumps(event) + "\n")
    return out


def run(lines: int = 5000, runs: int = 20) -> dict[str, Any]:
    from kenning.hosts.claude_code import hook_command, install, places
    from kenning.hosts.sync import HookEvent, archive_new_lines

    with tempfile.TemporaryDirectory(prefix="kenning-bench-hosts-") as tmp:
        root = Path(tmp)
        home = Home.open(root / "home", overrides={"embedding": {"provider": "none"}})
        home.root.mkdir(parents=True, exist_ok=True)
        install(home, places("user", user_home=root / "user", project=None), review=False)
        command = hook_command(home, review=False, assignments=[])
        transcript = root / "user" / ".claude" / "projects" / "p" / f"{SESSION}.jsonl"
        transcript.parent.mkdir(parents=True)
        transcript.write_text("".join(transcript_lines(0, lines)), encoding="utf-8")
        event = {
            "session_id": SESSION,
            "transcript_path": str(transcript),
            "cwd": str(root),
            "hook_event_name": "Stop",
        }
        started = time.monotonic()
        first = archive_new_lines(home.archive, HookEvent.parse(json.dumps(event)))
        first_pass = time.monotonic() - started
        env = {**os.environ, "HOME": str(root / "user")}
        hook_s, pass_s = [], []
        n = lines
        for _ in range(runs):
            with transcript.open("a", encoding="utf-8") as handle:
                handle.writelines(transcript_lines(n, 2))
            n += 2
            want = _count(home, first.session_id) + 1  # two lines: a prompt, a tool call
            started = time.monotonic()
            subprocess.run(
                ["sh", "-c", command], input=json.dumps(event), text=True, env=env, check=True
            )
            hook_s.append(time.monotonic() - started)
            _wait(lambda want=want: _count(home, first.session_id) >= want)
        for _ in range(runs):
            with transcript.open("a", encoding="utf-8") as handle:
                handle.writelines(transcript_lines(n, 2))
            n += 2
            started = time.monotonic()
            archive_new_lines(home.archive, HookEvent.parse(json.dumps(event)))
            pass_s.append(time.monotonic() - started)
        home.close()
    hook50, hook95 = p50_p95(hook_s)
    pass50, pass95 = p50_p95(pass_s)
    return {
        "lines": lines,
        "runs": runs,
        "hook_ms": {"p50": hook50 * 1000, "p95": hook95 * 1000, "max": max(hook_s) * 1000},
        "pass_ms": {"p50": pass50 * 1000, "p95": pass95 * 1000, "max": max(pass_s) * 1000},
        "first_pass_ms": first_pass * 1000,
        "budget_ms": 300,
    }


def _count(home: Home, session_id: str | None) -> int:
    if session_id is None:
        return 0
    session = home.archive.session(session_id)
    return session.message_count if session else 0


def _wait(done: Any, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not done():
        if time.monotonic() > deadline:
            raise RuntimeError("the hook's worker did not archive the new lines within a minute")
        time.sleep(0.05)


def table(report: dict[str, Any]) -> list[str]:
    hook, one = report["hook_ms"], report["pass_ms"]
    verdict = "within" if hook["p95"] <= report["budget_ms"] else "OVER"
    return [
        f"transcript: {report['lines']:,} lines; {report['runs']} runs each",
        f"hook (what Claude Code waits for): p50 {hook['p50']:.0f} ms, p95 {hook['p95']:.0f} ms, "
        f"max {hook['max']:.0f} ms — {verdict} the {report['budget_ms']} ms budget",
        f"worker archiving pass (2 new lines): p50 {one['p50']:.1f} ms, p95 {one['p95']:.1f} ms",
        f"first pass over the whole transcript: {report['first_pass_ms']:.0f} ms",
    ]
