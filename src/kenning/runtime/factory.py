"""Composition root: a ready ``AgentSession`` from a home and a model string.

`kenning chat`, `kenning run`, the benchmarks and tests that want the real
thing all build sessions here, so the tools, the skills index and the model
are wired the same way everywhere.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from kenning import plugins as installed
from kenning import providers
from kenning.agent.delegate import delegate_tool
from kenning.agent.loop import AgentSession, AgentSettings, Approver
from kenning.archive.store import Source
from kenning.context.engine import ContextEngine
from kenning.home import Home
from kenning.learning.background import install_review
from kenning.models.registry import resolve_model
from kenning.models.types import Model
from kenning.plugins import ToolRegistration
from kenning.prompt.system import skills_block
from kenning.skills.agent_tools import skill_registry_tools
from kenning.tools.base import Tool
from kenning.tools.registry import ToolRegistry, default_registry
from kenning.workspace import Workspaces, python_tool


def build_tools(
    home: Home, *, plugins: bool = True, workspaces: Workspaces | None = None
) -> ToolRegistry:
    """Every tool for one session: files, shell, python, memory, archive, skills, delegation,
    then the tools installed plugins register (a built-in's name is not given away).

    ``workspaces`` holds the python tool's kernels (one is made if not given); the
    registry's ``close`` ends them."""
    registry = default_registry(home)
    registry.register(python_tool(workspaces or Workspaces(home)))
    for tool in skill_registry_tools(home):
        registry.register(tool)
    registry.register(delegate_tool())
    if plugins:
        built = installed.registry().built("tools", registry.names(), plugin_tool)
        for tool in built.values():
            registry.register(tool)
    return registry


def plugin_tool(registration: ToolRegistration) -> Tool:
    """The ``Tool`` of a plugin's registration, its schema from the signature and docstring
    (``SchemaError`` for a function a model cannot be told about: the plugin's error)."""
    fn = registration.fn
    if isinstance(fn, Tool):
        return fn
    return Tool.from_function(
        fn, name=registration.name, read_only=registration.read_only, toolset="plugins"
    )


def open_session(
    home: Home,
    *,
    model: Model | str | None = None,
    source: Source = "cli",
    cwd: Path | None = None,
    resume: str | None = None,
    continue_last: bool = False,
    approve: Approver | None = None,
    task: str | None = None,
    settings: AgentSettings | None = None,
    review: bool = True,
) -> AgentSession:
    """A new session, or ``resume`` / the latest of ``source`` (``continue_last``).

    ``review=False`` leaves out the background review (a goal run that keeps what
    it learns with the session).

    ``model`` may be a ``Model`` (tests), a model string, or None for
    ``[model] default`` — which raises ``ModelNotConfigured`` with the how-to.
    """
    chosen = (
        model
        if model is not None and not isinstance(model, str)
        else resolve_model(model, home.config.model, config_path=home.layout.config_file)
    )
    where = (cwd or Path.cwd()).resolve()
    workspaces = Workspaces(home)
    tools = build_tools(home, workspaces=workspaces)
    # [memory] provider: at most one external memory beside the built-in; a bad name
    # or option raises ProviderError here, before any session is created.
    memory = providers.from_config(home.config.memory, home_root=home.root)
    run_settings = settings or AgentSettings.from_home(home)
    run_settings = replace(run_settings, source=source)
    if continue_last and resume is None:
        latest = home.archive.sessions(limit=1, sources=[source])
        resume = latest[0].id if latest else None
    if resume is not None:
        session = AgentSession.resume(
            home, chosen, tools, resume, cwd=where, settings=run_settings, approve=approve
        )
    else:
        session = AgentSession.start(
            home,
            chosen,
            tools,
            cwd=where,
            settings=run_settings,
            task=task,
            skills_block=skills_block(home),
            approve=approve,
        )
    session.memory_providers = memory
    if review:
        install_review(session)  # the background review, on turn_end (kenning.learning)
    engine = ContextEngine.from_home(home)
    # After a compaction the model is told which variables its kernel still holds.
    engine.summary_notes.append(lambda compacted: workspaces.note(compacted.session_id))
    return engine.attach(session)  # prune, flush, compact
