"""A deterministic stand-in for the model in the context engine's two silent jobs.

``DeterministicSummariser`` is a ``Model`` that answers
- summary requests (the compactor's ``<previous-summary>`` / ``<messages>`` /
  ``<must-keep>`` format) with the fixed sections, built from what it reads;
- flush turns (the only tool offered is ``journal_append``) with one journal
  entry of the user rules and identifiers in view that the system prompt
  does not already carry, then ``NO_REPLY``.

It is deliberately imperfect in one controllable way: with ``drop_every=k``
it leaves out every k-th must-keep identifier of a first draft, as a model
skimming a long list does; a retry that names the missing items gets them.
That exercises the engine's guard the way a real model would, without a
network and with the same output every run.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from kenning.context.guard import extract_identifiers, is_path, rule_statements
from kenning.models.types import ChatMessage, ModelSettings, ToolSpec
from kenning.testing.models import FunctionModel, Reply, tool_call

_SECTION = re.compile(r"<(?P<tag>[a-z-]+)(?P<attrs>[^>]*)>\n(?P<body>.*?)\n</(?P=tag)>", re.S)
_MESSAGE = re.compile(r"^\[#(?P<seq>\d+) (?P<who>[^\]]+)\]\n?", re.M)
ENTRY_CHARS = 6_000  # the journal refuses entries over 8,000 characters


class DeterministicSummariser(FunctionModel):
    def __init__(
        self,
        *,
        drop_every: int = 0,
        name: str = "deterministic:summariser",
        context_window: int = 128_000,
    ) -> None:
        super().__init__(self._reply, name=name, context_window=context_window)
        self.drop_every = drop_every
        self.summaries = 0
        self.flushes = 0

    def _reply(
        self, messages: list[ChatMessage], tools: list[ToolSpec], settings: ModelSettings | None
    ) -> Reply:
        if any(t.name == "journal_append" for t in tools):
            return self.flush(messages)
        return self.summary(messages[-1].content)

    # -- summaries ------------------------------------------------------------------------

    def summary(self, request: str) -> str:
        self.summaries += 1
        parts = {m.group("tag"): m.group("body") for m in _SECTION.finditer(request)}
        previous = _sections(parts.get("previous-summary", ""))
        keep = parts.get("must-keep", "")
        correction = parts.get("correction", "")
        identifiers = _listed(keep, "Exact identifiers")
        rules = _listed(keep, "User rules to keep")
        latest = _after(keep, "Latest user ask (quote it verbatim under Pending user asks):")
        if not correction and self.drop_every > 0:
            identifiers = [
                ident
                for i, ident in enumerate(identifiers)
                if (i + 1) % self.drop_every != 0 or ident in correction
            ]
        messages = _messages(parts.get("messages", ""))
        asks = [body for who, body in messages if who == "user"]
        actions = [
            line.strip().removeprefix("→ ").split(" ", 1)[0]
            for who, body in messages
            if who == "assistant"
            for line in body.splitlines()
            if line.strip().startswith("→ ")
        ]
        goal = previous.get("Goal") or ([f"- {asks[0][:200]}"] if asks else ["- none"])
        done = [*previous.get("Completed actions", []), *(f"- called {a}" for a in actions)]
        done = [d for d in done if d != "- none"][-12:] or ["- none"]
        answers = [body for who, body in messages if who == "assistant" and body.strip()]
        state = [f"- {answers[-1].splitlines()[0][:200]}"] if answers else ["- none"]
        files = [i for i in identifiers if is_path(i)]
        sections = {
            "Goal": goal,
            "Constraints and user rules": [f"- {r}" for r in rules] or ["- none"],
            "Decisions": previous.get("Decisions") or ["- none"],
            "Completed actions": done,
            "Active state": state,
            "Pending user asks": [f"- Latest, verbatim: {latest}"] if latest else ["- none"],
            "Open TODOs": ["- continue with the latest ask"],
            "Relevant files": [f"- {f}" for f in files] or ["- none"],
            "Exact identifiers": [f"- {i}" for i in identifiers] or ["- none"],
        }
        return "\n".join(
            f"## {title}\n" + "\n".join(lines) + "\n" for title, lines in sections.items()
        )

    # -- flush turns ----------------------------------------------------------------------

    def flush(self, messages: Sequence[ChatMessage]) -> Reply:
        if messages and messages[-1].role == "tool":
            return "NO_REPLY"
        self.flushes += 1
        known = messages[0].content if messages and messages[0].role == "system" else ""
        rules: list[str] = []
        identifiers: list[str] = []
        for message in messages[1:-1]:
            if message.role != "user" or message.content.startswith("[CONTEXT SUMMARY"):
                continue
            rules.extend(r for r in rule_statements(message.content) if r not in known)
            identifiers.extend(i for i in extract_identifiers(message.content) if i not in known)
        lines = [f"- Rule: {r}" for r in dict.fromkeys(rules)]
        lines += [f"- Id: {i}" for i in dict.fromkeys(identifiers)]
        if not lines:
            return "NO_REPLY"
        text = ""
        for line in lines:
            if len(text) + len(line) + 1 > ENTRY_CHARS:
                break
            text += line + "\n"
        return tool_call("journal_append", text=text.strip())


def _sections(summary: str) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in summary.splitlines():
        if line.startswith("## "):
            current = found.setdefault(line[3:].strip(), [])
        elif current is not None and line.strip():
            current.append(line)
    return found


def _listed(block: str, heading: str) -> list[str]:
    start = block.find(heading)
    if start < 0:
        return []
    items: list[str] = []
    for line in block[start:].splitlines()[1:]:
        if not line.startswith("- "):
            break
        items.append(line[2:])
    return items


def _after(block: str, heading: str) -> str:
    start = block.find(heading)
    if start < 0:
        return ""
    rest = block[start + len(heading) :].lstrip("\n")
    return rest.split("\n\n", 1)[0].strip()


def _messages(block: str) -> list[tuple[str, str]]:
    marks = list(_MESSAGE.finditer(block))
    found: list[tuple[str, str]] = []
    for i, mark in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(block)
        who = mark.group("who")
        role = "tool" if who.startswith("result of") else who
        found.append((role, block[mark.end() : end].strip()))
    return found
