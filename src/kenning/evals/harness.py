"""What every scenario shares: scratch homes, the agent under test, metering, the report.

Invariants:
- a scenario only ever touches homes made here, under one temporary
  directory per run (``Scratch``), built the way the tests build theirs
  (``kenning.home.Home`` with an explicit ``Config``: no config file or
  environment is read, so the user's home and settings can never leak in);
- every model request of a run goes through one ``Meter`` (requests, input and
  output tokens as the API reported them), so a report's cost is what was spent;
- a check is a named boolean with what it expects, so a report says which
  checks failed, and a test can show that each one can fail.
"""

from __future__ import annotations

import contextlib
import logging
import tempfile
import time
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import TracebackType
from typing import Any, Literal, Protocol

from kenning.agent.events import TurnEnded
from kenning.agent.loop import AgentSession, AgentSettings, Approver
from kenning.config import Config, EmbeddingConfig, HistoryConfig, ModelConfig, ReviewConfig
from kenning.home import Home
from kenning.models.types import (
    ChatMessage,
    Model,
    ModelResponse,
    ModelSettings,
    ResponseDone,
    StreamEvent,
    ToolSpec,
    Usage,
)
from kenning.runtime import open_session

Measures = Literal["kenning", "kenning+model"]
log = logging.getLogger(__name__)


# -- metering -------------------------------------------------------------------------------


@dataclass
class Meter:
    """Requests and tokens spent, as the model's API reported them."""

    requests: int = 0
    usage: Usage = field(default_factory=Usage)

    def add(self, usage: Usage) -> None:
        self.requests += 1
        self.usage = self.usage + usage


class MeteredModel:
    """A ``Model`` that counts what ``inner`` spends into ``meter``."""

    def __init__(self, inner: Model, meter: Meter) -> None:
        self.inner = inner
        self.meter = meter

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def context_window(self) -> int:
        return self.inner.context_window

    async def request(
        self,
        messages: Sequence[ChatMessage],
        *,
        tools: Sequence[ToolSpec] = (),
        settings: ModelSettings | None = None,
    ) -> ModelResponse:
        response = await self.inner.request(messages, tools=tools, settings=settings)
        self.meter.add(response.usage)
        return response

    async def stream(
        self,
        messages: Sequence[ChatMessage],
        *,
        tools: Sequence[ToolSpec] = (),
        settings: ModelSettings | None = None,
    ) -> AsyncIterator[StreamEvent]:
        async for event in self.inner.stream(messages, tools=tools, settings=settings):
            if isinstance(event, ResponseDone):
                self.meter.add(event.response.usage)
            yield event


# -- the agent under test -------------------------------------------------------------------


class Agent(Protocol):
    """The model side of a run: the scripted reference agent or a user's model."""

    @property
    def spec(self) -> str:
        """The model string as the user gave it (``reference`` for the scripted agent)."""
        ...

    @property
    def scripted(self) -> bool: ...

    def model(self, meter: Meter, *, context_window: int = 0) -> Model:
        """A model for one session; ``context_window`` > 0 makes Kenning budget for that."""
        ...

    def summariser(self, meter: Meter) -> Model | None:
        """Who writes compaction summaries (None: the session's own model)."""
        ...

    def child_model(self) -> dict[str, Any]:
        """The ``[model]`` table that makes a child ``kenning`` process use this agent."""
        ...

    def slow_reviews(self, slow: bool) -> None:
        """Make background reviews take a while (if the agent can), so a kill lands inside."""
        ...

    def close(self) -> None: ...


class RegistryAgent:
    """Any model string, through Kenning's model registry (OpenAI-compatible, Anthropic,
    Ollama, …) with the user's ``[model]`` settings; keys come from the environment."""

    scripted = False

    def __init__(self, spec: str, config: ModelConfig) -> None:
        from kenning.models.registry import resolve_model

        self._spec = spec
        self._config = config
        resolve_model(spec, config)  # a bad string or a missing key fails before any scenario

    @property
    def spec(self) -> str:
        return self._spec

    def model(self, meter: Meter, *, context_window: int = 0) -> Model:
        from kenning.models.registry import resolve_model

        config = replace(self._config, context_window=context_window or self._config.context_window)
        return MeteredModel(resolve_model(self._spec, config), meter)

    def summariser(self, meter: Meter) -> Model | None:
        return None

    def child_model(self) -> dict[str, Any]:
        defaults = ModelConfig()
        changed = {
            name: getattr(self._config, name)
            for name in ModelConfig.__dataclass_fields__
            if getattr(self._config, name) != getattr(defaults, name)
        }
        return {**changed, "default": self._spec}

    def slow_reviews(self, slow: bool) -> None:
        pass  # a real model's review takes the time it takes

    def close(self) -> None:
        pass


# -- scratch homes --------------------------------------------------------------------------


def scratch_config(*, review: bool = False, memory_budget: int = 2200) -> Config:
    """The settings of every eval home: keyword search (no embedder to load, the same
    results everywhere), history on, the background review only where a scenario asks."""
    return Config(
        embedding=EmbeddingConfig(provider="none"),
        history=HistoryConfig(enabled=True),
        review=ReviewConfig(
            memory_every_user_turns=10 if review else 0,
            skills_every_iterations=10 if review else 0,
        ),
        memory=replace(Config().memory, memory_budget=memory_budget),
    )


class Scratch:
    """One temporary directory holding a run's homes and work folders; removed on close."""

    def __init__(self, prefix: str = "kenning-eval-") -> None:
        self._tmp = tempfile.TemporaryDirectory(prefix=prefix)
        self.root = Path(self._tmp.name)
        self._homes: list[Home] = []

    def home(self, profile: str | None = None, *, config: Config | None = None) -> Home:
        """The scratch base home, or one of its profiles (``<base>/profiles/NAME``, as
        ``kenning --profile NAME`` lays them out)."""
        base = self.root / "home"
        root = base if profile is None else base / "profiles" / profile
        home = Home(root, config or scratch_config())
        self._homes.append(home)
        return home

    def workdir(self, name: str = "work") -> Path:
        path = self.root / name
        path.mkdir(parents=True, exist_ok=True)
        return path

    def close(self) -> None:
        for home in self._homes:
            home.close()
        self._tmp.cleanup()

    def __enter__(self) -> Scratch:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


# -- sessions -------------------------------------------------------------------------------


@dataclass
class Turn:
    """One user turn as the scenario saw it: what was asked, answered and called."""

    ask: str
    ended: TurnEnded
    calls: list[tuple[str, dict[str, Any], str]]  # tool name, arguments, result text

    @property
    def answer(self) -> str:
        return self.ended.answer

    def called(self, *names: str) -> list[tuple[str, dict[str, Any], str]]:
        return [c for c in self.calls if c[0] in names]


SEARCH_TOOLS = ("memory_search", "session_search", "memory_get")
# Model requests per turn: room for a real model to look around, a bound on a runaway one.
MAX_ITERATIONS = 24


class Conversation:
    """An archived session on a scratch home, opened by the real factory."""

    def __init__(
        self,
        home: Home,
        agent: Agent,
        meter: Meter,
        *,
        cwd: Path,
        context_window: int = 0,
        source: Literal["cli", "run"] = "cli",
        approve: Approver | None = None,
    ) -> None:
        """``approve`` stands in for the user at shell approvals (None: nobody to ask,
        so a command that needs approval is refused)."""
        self.session: AgentSession = open_session(
            home,
            model=agent.model(meter, context_window=context_window),
            source=source,
            cwd=cwd,
            approve=approve,
            settings=AgentSettings.from_home(home, stream=True, max_iterations=MAX_ITERATIONS),
        )
        summariser = agent.summariser(meter)
        if summariser is not None and self.session.context_engine is not None:
            self.session.context_engine.summariser = summariser
        self.turns: list[Turn] = []

    @property
    def system_prompt(self) -> str:
        view = self.session.transcript.view()
        return view[0].content if view and view[0].role == "system" else ""

    async def say(self, text: str) -> Turn:
        start = len(self.session.transcript.view())
        ended = await self.session.run(text)
        view = self.session.transcript.view()
        results = {m.tool_call_id: m.content for m in view if m.role == "tool"}
        calls: list[tuple[str, dict[str, Any], str]] = []
        for message in view[max(0, start - 1) :]:
            for call in message.tool_calls:
                calls.append((call.name, _arguments(call.arguments), results.get(call.id, "")))
        turn = Turn(text, ended, calls)
        self.turns.append(turn)
        return turn

    async def close(self) -> None:
        await self.session.close()


def _arguments(raw: str) -> dict[str, Any]:
    import json

    try:
        parsed = json.loads(raw or "{}")
    except ValueError:
        return {"_raw": raw}
    return parsed if isinstance(parsed, dict) else {"_raw": raw}


def source_of(turn: Turn, value: str, hot_memory: str) -> str:
    """Where an answer carrying ``value`` came from: a search this turn, the hot-memory
    snapshot, the conversation itself, or none (the value is not in the answer)."""
    if value not in turn.answer:
        return "none"
    if any(value in result for _, _, result in turn.called(*SEARCH_TOOLS)):
        return "search"
    if value in hot_memory:
        return "hot memory"
    return "context"


# -- results --------------------------------------------------------------------------------


@dataclass
class Check:
    name: str
    ok: bool
    expect: str  # what passing means, for the report

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "ok": self.ok, "expect": self.expect}


@dataclass
class Outcome:
    """What one scenario run measured."""

    metrics: dict[str, Any] = field(default_factory=dict)
    checks: list[Check] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def check(self, name: str, ok: bool, expect: str) -> bool:
        self.checks.append(Check(name, bool(ok), expect))
        return bool(ok)

    @property
    def passed(self) -> bool:
        return all(c.ok for c in self.checks)

    def failed(self) -> list[str]:
        return [c.name for c in self.checks if not c.ok]


@dataclass(frozen=True)
class Scenario:
    key: str  # what the command line takes
    number: int  # the survey's numbering
    title: str
    measures: Measures
    why: str  # one line: what this measures, and of whom
    run: Callable[[Agent, Scratch, Meter, int], Outcome]
    todo: tuple[str, ...] = ()  # parts not measured yet, said in the report


def run_one(scenario: Scenario, agent: Agent, seed: int) -> dict[str, Any]:
    """One scenario on fresh scratch homes, timed and metered."""
    meter = Meter()
    started = time.monotonic()
    with Scratch() as scratch:
        try:
            outcome = scenario.run(agent, scratch, meter, seed)
        except (
            Exception
        ) as exc:  # one broken run (a model's surprise, a tool) must not lose the rest
            log.debug("scenario %s stopped", scenario.key, exc_info=True)
            outcome = Outcome()
            outcome.check("completed", False, "the scenario runs to its end")
            outcome.notes.append(f"the scenario stopped: {type(exc).__name__}: {exc}")
    return {
        "scenario": scenario.key,
        "seed": seed,
        "passed": outcome.passed,
        "failed": outcome.failed(),
        "metrics": outcome.metrics,
        "checks": [c.to_dict() for c in outcome.checks],
        "notes": outcome.notes,
        "requests": meter.requests,
        "input_tokens": meter.usage.input_tokens,
        "output_tokens": meter.usage.output_tokens,
        "seconds": round(time.monotonic() - started, 3),
    }


def run(
    scenarios: Sequence[Scenario],
    agent: Agent,
    *,
    repeats: int = 1,
    seed: int = 0,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Every scenario ``repeats`` times (seed, seed+1, …); the whole report as JSON-ready data."""
    from kenning.version import __version__

    started = time.monotonic()
    rows: list[dict[str, Any]] = []
    for scenario in scenarios:
        runs = []
        for i in range(repeats):
            runs.append(run_one(scenario, agent, seed + i))
            if progress is not None:
                progress(scenario.key)
        rows.append(
            {
                "scenario": scenario.key,
                "number": scenario.number,
                "title": scenario.title,
                "measures": scenario.measures,
                "why": scenario.why,
                "todo": list(scenario.todo),
                "runs": runs,
                "passed": sum(1 for r in runs if r["passed"]),
                "repeats": repeats,
            }
        )
    return {
        "kenning_version": __version__,
        "model": agent.spec,
        "scripted_agent": agent.scripted,
        "seeds": [seed + i for i in range(repeats)],
        "seconds": round(time.monotonic() - started, 3),
        "scenarios": rows,
    }


@contextlib.contextmanager
def agent_closing(agent: Agent) -> Iterator[Agent]:
    try:
        yield agent
    finally:
        agent.close()
