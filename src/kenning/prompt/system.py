"""The system prompt: assembled once when a session starts, then frozen.

Order, most stable first (so a provider's prompt cache keeps the longest
possible prefix): identity and standing rules (SOUL.md, the AGENTS.md /
CLAUDE.md chain), how to use the memory layers, the hot-memory snapshot, the
skills index, the journal of today and yesterday, the environment.

Invariant: the text is computed once per session and stored with it; memory
written during the session changes the files, never this text, so the prompt
is byte-identical on every turn (and after ``--resume``) until a compaction,
the one moment it is rebuilt with fresh memory and skills.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from pathlib import Path

from kenning import clock
from kenning.home import Home
from kenning.journal import JournalError
from kenning.prompt import template
from kenning.prompt.rules import load_rules, render_rules
from kenning.safety import threats
from kenning.skills.agent_tools import index_block

DEFAULT_IDENTITY = (
    "You are Kenning, a capable assistant with a long-term memory. You work in the "
    "user's environment through tools, you remember what matters across sessions, "
    "and you get better at recurring work by keeping skills."
)
# The journal enters the prompt in full only while it is short; a long day is
# cut to its end (the newest entries), and the rest is a memory_get away.
JOURNAL_DAY_CHARS = 3_000
GIT_TIMEOUT_S = 2.0

SkillsBlock = Callable[[str | None], str]


@dataclass(frozen=True)
class SystemPrompt:
    text: str
    sections: tuple[str, ...]  # names of the sections present, in order


def guidance() -> str:
    """How to use the memory layers (package data, so it can be read and edited as prose)."""
    return template("guidance.md")


def skills_block(home: Home) -> SkillsBlock:
    """The skills index for a new session's prompt, ranked by the session's task."""

    def block(task: str | None) -> str:
        return index_block(home, task)

    return block


def build_system_prompt(
    home: Home,
    *,
    cwd: Path,
    task: str | None = None,
    skills_block: SkillsBlock | None = None,
    now: datetime | None = None,
) -> SystemPrompt:
    """The frozen system prompt for a new session working in ``cwd``."""
    moment = now or clock.now().astimezone()
    parts: list[tuple[str, str]] = []
    rules = load_rules(home.layout, cwd, max_file_chars=home.config.rules.max_file_chars)
    if not any(r.scope == "identity" for r in rules):
        parts.append(("identity", DEFAULT_IDENTITY))
    if rules:
        parts.append(("rules", render_rules(rules).strip()))
    parts.append(("guidance", guidance().strip()))
    parts.append(("memory", home.snapshot().render().strip()))
    if skills_block is not None:
        block = skills_block(task).strip()
        if block:
            parts.append(("skills", block))
    journal = _journal_block(home, moment.date())
    if journal:
        parts.append(("journal", journal))
    parts.append(("environment", environment_block(cwd, moment)))
    text = "\n\n".join(body for _, body in parts) + "\n"
    return SystemPrompt(text=text, sections=tuple(name for name, _ in parts))


def _journal_block(home: Home, today: date) -> str:
    lines: list[str] = []
    for day, label in ((today - timedelta(days=1), "yesterday"), (today, "today")):
        try:
            text = home.journal.read(day)
        except JournalError:
            # Only the name, never the bytes: the session starts, the user can be told.
            lines.append(
                f"## Journal, {label} ({day.isoformat()})\n[not loaded: memory/"
                f"{day.isoformat()}.md is not a regular UTF-8 file Kenning can read; "
                "`kenning journal show` says why. Tell the user it needs fixing.]"
            )
            continue
        if not text or not text.strip():
            continue
        body = text.strip()
        if len(body) > JOURNAL_DAY_CHARS:
            body = (
                f"[… earlier entries cut; read the whole day with memory_get "
                f"path=memory/{day.isoformat()}.md]\n" + body[-JOURNAL_DAY_CHARS:]
            )
        lines.append(
            f"## Journal, {label} ({day.isoformat()})\n{threats.neutralise(body, 'memory')}"
        )
    return "\n\n".join(lines)


def environment_block(cwd: Path, moment: datetime) -> str:
    rows = [
        "## Environment",
        f"- Date: {moment.strftime('%A %Y-%m-%d %H:%M %Z').strip()}",
        f"- Working directory: {cwd}",
    ]
    git = _git_summary(cwd)
    if git:
        rows.append(f"- Git: {git}")
    return "\n".join(rows)


def _git_summary(cwd: Path) -> str | None:
    """Branch and a count of changed files, or None outside a repository."""
    try:
        branch = subprocess.run(
            ["git", "-C", str(cwd), "rev-parse", "--abbrev-ref", "HEAD"],
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT_S,
            check=False,
        )
        if branch.returncode != 0:
            return None
        status = subprocess.run(
            ["git", "-C", str(cwd), "status", "--porcelain"],
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    changed = [line for line in status.stdout.splitlines() if line.strip()]
    state = f"{len(changed)} changed file(s)" if changed else "clean"
    return f"branch {branch.stdout.strip()}, {state}"
