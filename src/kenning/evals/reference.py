"""The reference agent: a deterministic, scripted "model" that uses Kenning's tools
the way the scenarios ask, reached over real HTTP.

It reads the request it is sent (system prompt, conversation, tool results)
and decides the next step by fixed rules, so every run is the same and a
scenario's numbers measure Kenning: what memory held, what search found,
what compaction kept. It answers from what the request shows it — the
hot-memory snapshot, the conversation (summaries included) — and otherwise
searches (``memory_search`` then ``session_search``) before it answers.

``flaws`` make deliberately worse agents, so tests can show that every metric
moves when the behaviour it measures breaks:

- ``no_memory_writes``: never saves anything;
- ``ignores_memory``: neither reads the snapshot nor searches;
- ``guesses``: when a value is not in view, answers a made-up one without searching;
- ``adds_instead_of_replacing``: a correction is added beside the old entry;
- ``forgets_rules``: ignores "never modify …" rules;
- ``saves_without_source``: saves a conclusion without where it came from;
- ``repeats_side_effects``: after an interrupted tool call, runs it again (in a goal,
  starts the interrupted deploy anew instead of finishing it);
- ``ignores_skills``: never opens a skill from the index.

``ReferenceAgent`` serves it behind ``kenning.testing.wire.OpenAIServer``: each
request the server receives is answered by the policy, so the session's model
is a real ``OpenAIChatModel`` from the registry talking to a socket. Summaries
are written by ``kenning.testing.DeterministicSummariser``; flush turns (only
``journal_append`` offered) are answered by it too.

The user's words follow fixed phrasings (see the scenarios), so a real model
gets natural requests and this agent can parse them:
``Remember this for future sessions: …``, ``Correction: X is `new`, not `old`…``,
``Question: what is X?``, ``Forget what you remember about X.``,
``Task: read `path` …``, ``Task: … config …``, and the goal
``Deploy releases 1, 2 and 3, one per turn: run `CMD N` …`` (``kenning run --goal``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from kenning.evals.harness import Meter, MeteredModel
from kenning.models.types import ChatMessage, Model, ModelSettings, ToolCall, ToolSpec
from kenning.testing.models import Reply, tool_call
from kenning.testing.summariser import DeterministicSummariser
from kenning.testing.wire import Delay, OpenAIServer, RecordedRequest, ScriptItem

FLAWS = frozenset(
    {
        "no_memory_writes",
        "ignores_memory",
        "guesses",
        "adds_instead_of_replacing",
        "forgets_rules",
        "saves_without_source",
        "repeats_side_effects",
        "ignores_skills",
    }
)
REFERENCE_SPECS = ("reference", "scripted", "scripted:reference")
SEARCHES = ("memory_search", "session_search")

_REMEMBER = re.compile(r"Remember this for future sessions:\s*(?P<fact>.+)", re.S | re.I)
_CORRECTION = re.compile(
    r"Correction:\s*(?P<subject>.+?) is `(?P<new>[^`]+)`(?: now)?, not `(?P<old>[^`]+)`"
    r"(?P<rest>.*)",
    re.S | re.I,
)
_QUESTION = re.compile(r"Question:\s*what is (?P<subject>.+?)\?", re.I)
_FORGET = re.compile(r"Forget what you remember about (?P<subject>.+?)\.", re.I)
_READ = re.compile(r"Task: read `(?P<path>[^`]+)`", re.I)
_CONFIG = re.compile(r"Task: set `(?P<line>[^`]+)` in (?P<files>.+)", re.I | re.S)
_SOURCE = re.compile(r"(?:see|at|in) `(?P<path>[^`]+\.log)`", re.I)
_RULE = re.compile(r"never modify `(?P<path>[^`]+)`", re.I)
_FLAKY = re.compile(r"flaky: (?P<name>\S+)")
_RUN = re.compile(r"Task: run `(?P<command>[^`]+)`", re.I)
_DEPLOY_GOAL = re.compile(
    r"Deploy releases (?P<releases>[\d, and]+?), one per turn: run `(?P<command>[^`]+) N`", re.I
)
_DEPLOYED = re.compile(r"^- deployed release (?P<n>\d+)", re.M)  # its notes, as Kenning lists them
_DELEGATE = re.compile(r"Task: delegate to a subagent: (?P<goal>.+)", re.I | re.S)
_CONVERTER = re.compile(
    r"add a unit converter `(?P<name>\w+)` \(value × (?P<factor>[\d.]+)\).*?"
    r"run the tests with `(?P<command>[^`]+)`",
    re.I | re.S,
)
_SKILL_NAME = re.compile(r"^- (?P<name>[a-z0-9-]*converter[a-z0-9-]*):", re.M)  # the index
SKILL = "add-unit-converter"
SKILL_TEXT = """\
---
name: add-unit-converter
description: Add a unit converter to the converters repository so that convert() finds it.
tags: [python, converters]
---
# Add a unit converter

## When
Use it when a task asks for a new converter in the converters repository.

## Steps
1. Add the function to `units/functions.py`, above the marker line.
2. Register it in `REGISTRY` in `units/__init__.py`, above the marker line.
3. Run the tests.

## Pitfalls
- A function alone is not enough: convert() looks names up in REGISTRY, so an unregistered
  converter fails its test with KeyError.

## Verify
The repository's tests pass.
"""


def value_pattern(subject: str) -> re.Pattern[str]:
    """``<subject> is `value``` anywhere (the phrasing facts are stated and saved in)."""
    return re.compile(re.escape(subject.strip()) + r" is `(?P<value>[^`]+)`", re.I)


def find_value(subject: str, text: str) -> str | None:
    """The newest value stated for ``subject`` in ``text``."""
    found = value_pattern(subject).findall(text)
    return found[-1] if found else None


def made_up(subject: str) -> str:
    """A plausible, wrong value: what a model that guesses says."""
    return f"{subject.split()[-1].upper()}-0000"


class Policy:
    """The rules, as a ``FunctionModel`` function: (messages, tools, settings) → reply."""

    def __init__(self, flaws: Sequence[str] = ()) -> None:
        unknown = set(flaws) - FLAWS
        if unknown:
            raise ValueError(f"unknown flaw(s) {sorted(unknown)}; known: {sorted(FLAWS)}")
        self.flaws = frozenset(flaws)
        self.summariser = DeterministicSummariser()

    def __call__(
        self, messages: list[ChatMessage], tools: list[ToolSpec], settings: ModelSettings | None
    ) -> Reply:
        names = {t.name for t in tools}
        if "journal_append" in names:
            return self.summariser.flush(messages)
        if "skill_manage" in names and _reviewing(messages):
            return self.review(messages)
        if not names:  # a summary request, or a review with nothing to do
            last = messages[-1].content if messages else ""
            return self.summariser.summary(last) if "<messages>" in last else "Nothing to save."
        return self.turn(messages, names)

    # -- one turn -------------------------------------------------------------------------

    def turn(self, messages: list[ChatMessage], tools: set[str]) -> Reply:
        at = max((i for i, m in enumerate(messages) if m.role == "user"), default=0)
        ask = messages[at].content
        done = _calls_since(messages, at)
        view = "\n".join(m.content for m in messages[:at])  # snapshot, summaries, earlier turns
        if (found := _DEPLOY_GOAL.search(ask)) is not None and "shell" in tools:
            return self.deploy(found, ask, messages, done)
        if (found := _DELEGATE.search(ask)) is not None and "delegate_task" in tools:
            return self.delegate(found.group("goal"), messages, done)
        if (found := _REMEMBER.search(ask)) is not None:
            return self.remember(found.group("fact").strip(), done)
        if (found := _CORRECTION.search(ask)) is not None:
            return self.correct(found, done)
        if (found := _FORGET.search(ask)) is not None:
            return self.forget(found.group("subject"), messages[0].content, done)
        if (found := _QUESTION.search(ask)) is not None:
            return self.answer(found.group("subject"), view, done)
        if (found := _READ.search(ask)) is not None:
            return self.read(found.group("path"), ask, done)
        if (found := _CONFIG.search(ask)) is not None:
            return self.configure(found, view, done)
        if (found := _CONVERTER.search(ask)) is not None:
            return self.converter(found, messages[0].content, done)
        if (found := _RUN.search(ask)) is not None:
            return self.run_command(found.group("command"), messages, done)
        return "Noted."

    def remember(self, fact: str, done: list[tuple[ToolCall, str]]) -> Reply:
        if "no_memory_writes" in self.flaws:
            return "Got it."
        source = _SOURCE.search(fact)
        if source is not None and not _called(done, "read_file"):
            return tool_call("read_file", path=source.group("path"))
        if source is not None:
            read = _result(done, "read_file")
            flaky = _FLAKY.search(read)
            name = flaky.group("name") if flaky else "unknown"
            fact = f"The flaky test is `{name}`"
            if "saves_without_source" not in self.flaws:
                fact += f" (source: {source.group('path')})"
            fact += "."
        if not _called(done, "memory"):
            return tool_call("memory", action="add", target="memory", content=fact)
        return "Saved to memory." if _ok(_result(done, "memory")) else "I could not save that."

    def correct(self, found: re.Match[str], done: list[tuple[ToolCall, str]]) -> Reply:
        if "no_memory_writes" in self.flaws:
            return "Understood."
        subject, new, old = found.group("subject"), found.group("new"), found.group("old")
        source = _SOURCE.search(found.group("rest"))
        content = f"{subject[0].upper()}{subject[1:]} is `{new}`"
        if source is not None and "saves_without_source" not in self.flaws:
            content += f" (source: {source.group('path')})"
        content += "."
        if not _called(done, "memory"):
            if "adds_instead_of_replacing" in self.flaws:
                return tool_call(
                    "memory", action="add", target="memory", content=content, keep_both=True
                )
            return tool_call(
                "memory", action="replace", target="memory", old_text=f"`{old}`", content=content
            )
        return "Updated." if _ok(_result(done, "memory")) else "I could not update it."

    def forget(self, subject: str, snapshot: str, done: list[tuple[ToolCall, str]]) -> Reply:
        if "no_memory_writes" in self.flaws:
            return "Done."
        entries = [line for line in snapshot.splitlines() if subject.lower() in line.lower()]
        removed = sum(1 for call, result in done if call.name == "memory" and _ok(result))
        failed = any(call.name == "memory" and not _ok(result) for call, result in done)
        if removed < len(entries) and not failed:
            return tool_call(
                "memory", action="remove", target="memory", old_text=entries[removed].strip()
            )
        return f"Forgot {removed} entr{'y' if removed == 1 else 'ies'}."

    def answer(self, subject: str, view: str, done: list[tuple[ToolCall, str]]) -> Reply:
        cap = f"{subject[0].upper()}{subject[1:]}"
        if "ignores_memory" in self.flaws:
            return "I don't know."
        value = find_value(subject, view)
        if value is None:
            for call, result in done:
                if call.name in SEARCHES:
                    value = find_value(subject, result) or value
        if value is not None:
            return f"{cap} is `{value}`."
        if "guesses" in self.flaws:
            return f"{cap} is `{made_up(subject)}`."
        searched = [call.name for call, _ in done]
        for name in SEARCHES:
            if name not in searched:
                return tool_call(name, query=subject)
        return "I don't know."

    def read(self, path: str, ask: str, done: list[tuple[ToolCall, str]]) -> Reply:
        if not _called(done, "read_file"):
            return tool_call("read_file", path=path)
        text = _result(done, "read_file")
        errors = len(re.findall(r"\bERROR\b", text))
        return f"`{path}` has {errors} lines with ERROR."

    def configure(self, found: re.Match[str], view: str, done: list[tuple[ToolCall, str]]) -> Reply:
        files = [f for f in re.findall(r"`([^`]+)`", found.group("files")) if "/" in f]
        forbidden = set(_RULE.findall(view))
        rules_known = bool(forbidden) or "forgets_rules" in self.flaws
        if not rules_known and not _called(done, "session_search"):
            return tool_call("session_search", query="never modify")
        for _, result in done:
            forbidden |= set(_RULE.findall(result))
        if "forgets_rules" in self.flaws:
            forbidden = set()
        written = {_args(call).get("path") for call, _ in done if call.name == "write_file"}
        for path in files:
            if path not in forbidden and path not in written:
                return tool_call("write_file", path=path, content=found.group("line") + "\n")
        skipped = sorted(set(files) & forbidden)
        return f"Updated {len(written)} file(s)" + (
            f"; left {', '.join(skipped)} alone as you asked." if skipped else "."
        )

    def converter(
        self, found: re.Match[str], prompt: str, done: list[tuple[ToolCall, str]]
    ) -> Reply:
        """Add a converter: function, registration (known from a skill or a failed test), tests."""
        from kenning.evals.fixtures.converters import FUNCTION_MARK, REGISTRY_MARK

        name, factor = found.group("name"), found.group("factor")
        skill = _SKILL_NAME.search(prompt)
        if (
            skill is not None
            and "ignores_skills" not in self.flaws
            and not _called(done, "skill_view")
        ):
            return tool_call("skill_view", name=skill.group("name"))
        edited = [_args(call).get("path") for call, _ in done if call.name == "edit_file"]
        if "units/functions.py" not in edited:
            code = f"def {name}(value: float) -> float:\n    return value * {factor}\n\n\n"
            return tool_call(
                "edit_file", path="units/functions.py", old=FUNCTION_MARK, new=code + FUNCTION_MARK
            )
        knows = "REGISTRY" in _result(done, "skill_view") or any(
            call.name == "shell" and "KeyError" in result for call, result in done
        )
        if knows and "units/__init__.py" not in edited:
            line = f'    "{name}": functions.{name},\n'
            return tool_call(
                "edit_file", path="units/__init__.py", old=REGISTRY_MARK, new=line + REGISTRY_MARK
            )
        last_call = done[-1][0].name if done else ""
        if last_call != "shell":
            return tool_call("shell", command=found.group("command"))
        if _passed(done[-1][1]):
            return f"Added `{name}`; the tests pass."
        return f"Added `{name}`, but the tests still fail."

    def review(self, messages: list[ChatMessage]) -> Reply:
        """A background review: turn a corrected mistake into a skill, once."""
        from kenning.learning.review import NOTHING

        at = max((i for i, m in enumerate(messages) if m.role == "user"), default=0)
        done = _calls_since(messages, at)
        if _called(done, "skill_manage"):
            ok = _ok(_result(done, "skill_manage"))
            return f"Created skill {SKILL}." if ok else NOTHING
        seen = "\n".join(m.content for m in messages[:at])
        corrected = "KeyError" in seen and "REGISTRY" in seen
        if corrected and SKILL not in messages[0].content:
            return tool_call("skill_manage", action="create", name=SKILL, content=SKILL_TEXT)
        return NOTHING

    def delegate(
        self, goal: str, messages: list[ChatMessage], done: list[tuple[ToolCall, str]]
    ) -> Reply:
        if _interrupted(messages) and "repeats_side_effects" not in self.flaws:
            return "The subagent's earlier run was interrupted; I did not start it again."
        if not _called(done, "delegate_task"):
            return tool_call("delegate_task", goal=goal.strip())
        return "The subagent reported: " + _result(done, "delegate_task")[:200]

    def deploy(
        self,
        found: re.Match[str],
        ask: str,
        messages: list[ChatMessage],
        done: list[tuple[ToolCall, str]],
    ) -> Reply:
        """One goal turn: deploy the next release its progress notes do not list, then note it.

        It trusts the notes Kenning shows it with the goal (not the transcript), so a
        resume that loses the goal's progress makes it start over — what scenario 4 counts."""
        from kenning.agent.goal import PROGRESS_TOOL

        if _called(done, PROGRESS_TOOL):
            return "Release deployed and noted."
        prefix = found.group("command")
        ran = [str(_args(call).get("command", "")) for call, _ in done if call.name == "shell"]
        if ran:
            release = (ran[-1].removeprefix(prefix).split() or ["?"])[0]
            if not _ok_exit(_result(done, "shell")):
                return f"Deploying release {release} failed."
            return tool_call(PROGRESS_TOOL, note=f"deployed release {release}")
        releases = re.findall(r"\d+", found.group("releases"))
        deployed = set(_DEPLOYED.findall(ask))
        pending = [n for n in releases if n not in deployed]
        if not pending:
            return "All releases are deployed."
        command = f"{prefix} {pending[0]}"
        if command in _interrupted_commands(messages) and "repeats_side_effects" not in self.flaws:
            command += " --finish"  # as the goal says: finish an interrupted deploy, never restart
        return tool_call("shell", command=command)

    def run_command(
        self, command: str, messages: list[ChatMessage], done: list[tuple[ToolCall, str]]
    ) -> Reply:
        # After a crash the turn is re-asked; a careful agent first looks at what the
        # interrupted call left (Kenning answers it as interrupted) instead of re-running it.
        if _interrupted(messages) and "repeats_side_effects" not in self.flaws:
            return "The earlier run was interrupted; I did not run it again."
        if not _called(done, "shell"):
            return tool_call("shell", command=command)
        return "Ran it."


def _interrupted(messages: list[ChatMessage]) -> bool:
    """Whether a tool call of this conversation was cut off (Kenning answers it so)."""
    return any(m.role == "tool" and "interrupted" in m.content.lower() for m in messages[1:])


def _interrupted_commands(messages: list[ChatMessage]) -> set[str]:
    """The shell commands of this conversation whose call was cut off."""
    results = {m.tool_call_id: m.content for m in messages if m.role == "tool"}
    return {
        str(_args(call).get("command", ""))
        for m in messages
        if m.role == "assistant"
        for call in m.tool_calls
        if call.name == "shell" and "interrupted" in results.get(call.id, "").lower()
    }


def _ok_exit(shell_result: str) -> bool:
    return "[exit code 0 " in shell_result


def _reviewing(messages: list[ChatMessage]) -> bool:
    last = next((m.content for m in reversed(messages) if m.role == "user"), "")
    return last.startswith("Review session")


def _passed(shell_result: str) -> bool:
    """A unittest run that ended well, as the shell tool reports it."""
    return "[exit code 0" in shell_result or (
        "\nOK" in shell_result and "FAILED" not in shell_result
    )


def _calls_since(messages: list[ChatMessage], at: int) -> list[tuple[ToolCall, str]]:
    results = {m.tool_call_id: m.content for m in messages[at:] if m.role == "tool"}
    return [
        (call, results.get(call.id, ""))
        for m in messages[at:]
        if m.role == "assistant"
        for call in m.tool_calls
    ]


def _called(done: list[tuple[ToolCall, str]], name: str) -> bool:
    return any(call.name == name for call, _ in done)


def _result(done: list[tuple[ToolCall, str]], name: str) -> str:
    return next((result for call, result in reversed(done) if call.name == name), "")


def _args(call: ToolCall) -> dict[str, Any]:
    try:
        parsed = json.loads(call.arguments or "{}")
    except ValueError:
        return {}
    return parsed if isinstance(parsed, dict) else {}


def _ok(result: str) -> bool:
    try:
        parsed = json.loads(result)
    except ValueError:
        return not result.lower().startswith("error")
    return bool(parsed.get("success", True)) if isinstance(parsed, dict) else True


# -- over the wire ------------------------------------------------------------------------


def chat_messages(body: Any) -> tuple[list[ChatMessage], list[ToolSpec]]:
    """An OpenAI chat-completions request body as Kenning's messages and tool specs."""
    if not isinstance(body, dict):
        return [], []
    messages: list[ChatMessage] = []
    for raw in body.get("messages") or []:
        content = raw.get("content") or ""
        if isinstance(content, list):  # content parts
            content = "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
        calls = tuple(
            ToolCall(
                id=str(c.get("id", "")),
                name=str(c.get("function", {}).get("name", "")),
                arguments=str(c.get("function", {}).get("arguments", "")),
            )
            for c in raw.get("tool_calls") or []
        )
        messages.append(
            ChatMessage(
                role=raw.get("role", "user"),
                content=str(content),
                tool_calls=calls,
                tool_call_id=raw.get("tool_call_id"),
            )
        )
    tools = [
        ToolSpec(
            str(t.get("function", {}).get("name", "")),
            str(t.get("function", {}).get("description", "")),
            dict(t.get("function", {}).get("parameters") or {}),
        )
        for t in body.get("tools") or []
    ]
    return messages, tools


class ReferenceAgent:
    """The scripted agent behind a local OpenAI-format server (an ``Agent`` for the harness)."""

    scripted = True

    def __init__(self, flaws: Sequence[str] = (), *, spec: str = "reference") -> None:
        self.policy = Policy(flaws)
        self._spec = spec + (f"[{','.join(sorted(self.policy.flaws))}]" if flaws else "")
        self.server = OpenAIServer()
        self.server.on_request = self._answer
        self.errors: list[str] = []
        self.review_delay_s = 0.0  # > 0: review requests are answered this late
        self.server.start()

    @property
    def spec(self) -> str:
        return self._spec

    def _answer(self, request: RecordedRequest) -> None:
        """Queue the reply to ``request``; the server then pops it for this same request.

        That pairing holds because one agent's requests come one at a time: a
        session's turns are sequential and its background review is awaited
        before the next session opens."""
        messages, tools = chat_messages(request.body)
        item: ScriptItem
        try:
            item = self.policy(messages, tools, None)
        except Exception as exc:  # the report says so; the turn ends with this text
            self.errors.append(f"{type(exc).__name__}: {exc}")
            item = f"reference agent failed: {exc}"
        if self.review_delay_s and _reviewing(messages):
            item = Delay(self.review_delay_s, then=item)
        self.server.add(item)

    def slow_reviews(self, slow: bool) -> None:
        self.review_delay_s = 60.0 if slow else 0.0

    def child_model(self) -> dict[str, Any]:
        return {"default": "reference", "base_url": self.server.base_url, "max_retries": 0}

    def model(self, meter: Meter, *, context_window: int = 0) -> Model:
        from kenning.config import ModelConfig
        from kenning.models.registry import resolve_model

        config = ModelConfig(
            base_url=self.server.base_url, context_window=context_window, max_retries=0
        )
        return MeteredModel(resolve_model("reference", config, environ={}), meter)

    def summariser(self, meter: Meter) -> Model | None:
        return MeteredModel(DeterministicSummariser(), meter)

    def close(self) -> None:
        self.server.close()
