"""The scenarios, in the order they run, and how a command line names them."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from kenning.config import ModelConfig
from kenning.evals import compaction, correction, fact_update, procedural, recovery
from kenning.evals.harness import Agent, RegistryAgent, Scenario

SCENARIOS: tuple[Scenario, ...] = (
    fact_update.SCENARIO,
    procedural.SCENARIO,
    compaction.SCENARIO,
    recovery.SCENARIO,
    correction.SCENARIO,
)
BY_KEY: dict[str, Scenario] = {s.key: s for s in SCENARIOS}


class UnknownScenario(ValueError):
    pass


def pick(names: Sequence[str]) -> list[Scenario]:
    """The scenarios named (by key or survey number), in the standard order; all when none."""
    if not names:
        return list(SCENARIOS)
    wanted: set[str] = set()
    for name in names:
        key = name.strip().lower()
        match = next((s for s in SCENARIOS if key in (s.key, str(s.number))), None)
        if match is None:
            known = ", ".join(f"{s.key} ({s.number})" for s in SCENARIOS)
            raise UnknownScenario(f"no scenario {name!r}; choose from {known}")
        wanted.add(match.key)
    return [s for s in SCENARIOS if s.key in wanted]


def agent_for(spec: str, config: Callable[[], ModelConfig]) -> Agent:
    """The scripted reference agent for ``reference`` (optionally ``reference[flaw,…]``),
    else the model string through the registry with ``config()`` (the ``[model]``
    settings: base URL, key variable, timeouts; read only for a real model)."""
    from kenning.evals.reference import REFERENCE_SPECS, ReferenceAgent

    name, _, rest = spec.strip().partition("[")
    if name.lower() in REFERENCE_SPECS:
        flaws = [f.strip() for f in rest.rstrip("]").split(",") if f.strip()]
        return ReferenceAgent(flaws)
    return RegistryAgent(spec, config())
