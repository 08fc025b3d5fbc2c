"""Tools: typed functions the model can call, and what every call runs inside.

A :class:`Tool` is built from a typed function (``@tool`` / ``Tool.from_function``:
name from the function, description from the docstring, schema from the
signature) or wraps a dict-in/dict-out callable with a hand-written schema
(``Tool.from_schema``). Either way ``Tool.run`` holds the same promises:

- the arguments are checked against the schema before the function runs; a
  mistake comes back as an error result listing what the tool expects;
- an exception inside a tool becomes an error result (type, message, next
  step); only cancellation propagates, so one bad tool never ends the loop;
- sync functions run in a worker thread, so a slow read never blocks the loop.

Each call also says what it touches (:class:`Access`) so the registry can run
non-conflicting calls of a batch at the same time; see ``registry.py`` for
the rule. A tool that writes and declares nothing is treated as touching
everything: the safe default for tools written later.

The MCP server (``kenning.mcp``) serves these same ``Tool`` objects to other
hosts' models: it checks arguments with ``Tool.check``, runs ``Tool.invoke``
inside its own boundary and sends ``ToolResult.data`` as structured content.
"""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
import json
import logging
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal, overload

from kenning.models.types import ToolSpec
from kenning.tools.schema import describe_parameters, function_signature, validate

if TYPE_CHECKING:
    from kenning.home import Home

log = logging.getLogger(__name__)

# ``await approve(command)``: True to run. The argument is an ``ApprovalRequest``:
# a str (the command line) that also carries ``.reason``, why approval is needed.
Approver = Callable[[str], Awaitable[bool]]


class ApprovalRequest(str):
    """The action to approve, as a plain str, plus ``reason`` for showing to the user.

    A str subclass so that an approver written as ``async def approve(command: str)``
    works unchanged; one that wants to explain reads ``getattr(command, "reason", "")``.
    ``kind`` says what is asked ("shell": the str is the command line; "edit": the str
    is the file's path and ``detail`` its unified diff; a tool may name its own);
    ``detail`` is what to show beside it.
    """

    reason: str
    kind: str
    detail: str

    def __new__(
        cls, command: str, reason: str = "", *, kind: str = "shell", detail: str = ""
    ) -> ApprovalRequest:
        made = super().__new__(cls, command)
        made.reason = reason
        made.kind = kind
        made.detail = detail
        return made


class ToolError(Exception):
    """Raised inside a tool for a mistake the model can fix: becomes an error result."""

    def __init__(self, message: str, next_step: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.next_step = next_step


@dataclass(frozen=True)
class ToolResult:
    """What a tool call returns. ``text`` is what the model reads.

    ``data`` is the same result as a JSON object, when there is one (a tool
    that returned a dict, or an error): what the MCP server sends as
    structured content.
    """

    text: str
    ok: bool = True
    meta: Mapping[str, Any] = field(default_factory=dict)
    data: Mapping[str, Any] | None = None

    @classmethod
    def error(cls, message: str, next_step: str | None = None, **meta: Any) -> ToolResult:
        text = f"Error: {message}"
        data: dict[str, Any] = {
            "success": False,
            "error": str(meta.get("kind") or "error"),
            "message": message,
        }
        if next_step:
            text += f"\nNext step: {next_step}"
            data["next_step"] = next_step
        return cls(text, ok=False, meta=meta, data=data)


@dataclass
class TurnState:
    """Per-turn counters the registry keeps in the context (reset by ``begin_turn``).

    Everything a tool counts across the calls of one turn lives here, in the
    caller's context, never on the tool object: one tool object serves every
    session and thread of a registry (or every client of the MCP server).
    """

    result_chars: int = 0  # characters of tool results kept in the context this turn
    spilled: int = 0  # results saved to spill/ this turn
    failures: dict[str, int] = field(default_factory=dict)  # failed writes per tool name


@dataclass
class ToolContext:
    """Where a tool call runs: the home, the session, the workspace and what is allowed.

    ``cwd`` is the workspace: relative paths resolve against it and file writes
    stay inside it. ``read_scope`` "anywhere" lets file tools read any path;
    "workspace" limits reads to the workspace, the home's ``spill/`` and
    ``extra_read_roots``. ``approve`` is asked before shell commands that need
    approval; None means nobody can be asked (headless runs, subagents), so
    those commands are refused. ``memory_writable`` is False for subagents and
    flush turns. ``purpose`` names the kind of turn in refusal messages.
    ``origin`` says who is calling when it is not Kenning's own agent (e.g.
    "via MCP (claude-code 1.2)"), for the provenance of what a call writes.
    """

    home: Home
    cwd: Path = field(default_factory=Path.cwd)
    session_id: str | None = None
    approve: Approver | None = None
    memory_writable: bool = True
    read_scope: Literal["anywhere", "workspace"] = "anywhere"
    extra_read_roots: tuple[Path, ...] = ()
    purpose: str = "main"
    origin: str = ""
    extras: dict[str, Any] = field(default_factory=dict)
    turn: TurnState = field(default_factory=TurnState)

    def __post_init__(self) -> None:
        self.cwd = Path(self.cwd).expanduser().resolve()

    def derive(self, **changes: Any) -> ToolContext:
        """A context for another turn or a subagent: fresh turn counters, its own extras.

        e.g. ``ctx.derive(session_id=child, memory_writable=False, approve=None,
        purpose="subagent")``.
        """
        changes.setdefault("turn", TurnState())
        changes.setdefault("extras", dict(self.extras))
        return dataclasses.replace(self, **changes)

    def provenance(self, what: str) -> str:
        """``what``, who called it and from which session: the reason a write is committed with."""
        who = f"{what} {self.origin}" if self.origin else what
        return f"{who}, session {self.session_id}" if self.session_id else who

    def resolve(self, raw: str) -> Path:
        """An absolute path for ``raw``: ``~`` expanded, relative to ``cwd``, symlinks resolved."""
        if "\x00" in raw:
            raise ToolError("the path contains a NUL byte", "Pass a plain file path.")
        path = Path(raw.strip() or ".").expanduser()
        return (self.cwd / path).resolve()


@dataclass(frozen=True)
class Access:
    """What one call reads and writes, for conflict detection within a batch.

    Resources are absolute paths (a directory covers everything below it) or
    named resources in the same shape (``/kenning/<home>/state.db``). Two calls
    conflict when either is exclusive or one writes what the other reads or
    writes.
    """

    reads: frozenset[str] = frozenset()
    writes: frozenset[str] = frozenset()
    exclusive: bool = False

    EXCLUSIVE: ClassVar[Access]
    NONE: ClassVar[Access]

    @classmethod
    def of(cls, *, reads: Iterable[Path | str] = (), writes: Iterable[Path | str] = ()) -> Access:
        return cls(frozenset(map(str, reads)), frozenset(map(str, writes)))

    def conflicts(self, other: Access) -> bool:
        if self.exclusive or other.exclusive:
            return True
        return _overlap(self.writes, other.writes | other.reads) or _overlap(
            other.writes, self.reads
        )


Access.EXCLUSIVE = Access(exclusive=True)
Access.NONE = Access()


def _overlap(left: frozenset[str], right: frozenset[str]) -> bool:
    return any(_covers(a, b) or _covers(b, a) for a in left for b in right)


def _covers(outer: str, inner: str) -> bool:
    return inner == outer or inner.startswith(outer.rstrip("/") + "/")


Handler = Callable[[dict[str, Any], ToolContext], Awaitable[Any]]
AccessFn = Callable[[dict[str, Any], ToolContext], Access]


@dataclass(frozen=True)
class Tool:
    """One tool: what the model is told (name, description, schema) and how to run it."""

    name: str
    description: str
    parameters: dict[str, Any]
    handler: Handler
    read_only: bool = False
    toolset: str = "default"
    access: AccessFn | None = None
    # False for tools whose output is bounded by design (read_file): spilling them
    # would send the model in circles reading its own spill files.
    spill: bool = True
    begin_turn: Callable[[], None] | None = None
    close: Callable[[], None] | None = None  # releases what the tool holds (a connection)
    # Arguments that arrive as null are dropped (the default applies) unless listed here.
    nullable: frozenset[str] = frozenset()
    # The tool asks kenning.tools.permissions itself, per call (shell runs read-only
    # commands in plan mode); any other tool that is not read_only is refused there.
    gated: bool = False

    def spec(self) -> ToolSpec:
        return ToolSpec(self.name, self.description, self.parameters)

    def check(self, args: Mapping[str, Any]) -> tuple[dict[str, Any], ToolResult | None]:
        """The arguments ready for the tool, or an error result saying what is wrong."""
        checked, problems = validate(args, self.parameters)
        if problems:
            return checked, ToolResult.error(
                f"invalid arguments for {self.name}: {'; '.join(problems)}.",
                f"call {self.name} again with these arguments:\n"
                f"{describe_parameters(self.parameters)}",
                kind="invalid_arguments",
            )
        return checked, None

    def access_for(self, args: dict[str, Any], ctx: ToolContext) -> Access:
        """What this call touches; anything unclear counts as touching everything."""
        if self.access is not None:
            try:
                return self.access(args, ctx)
            except Exception:
                return Access.EXCLUSIVE
        return Access.NONE if self.read_only else Access.EXCLUSIVE

    async def invoke(self, checked: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        """Run the tool on arguments ``check`` accepted; exceptions propagate.

        For callers with their own boundary (``run``, the MCP server).
        """
        args = {k: v for k, v in checked.items() if v is not None or k in self.nullable}
        return to_result(await self.handler(args, ctx))

    async def run(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        """Check the arguments, run the tool, and turn every outcome into a result."""
        checked, error = self.check(args)
        if error is not None:
            return error
        try:
            return await self.invoke(checked, ctx)
        except ToolError as exc:
            return ToolResult.error(exc.message, exc.next_step)
        except (asyncio.CancelledError, KeyboardInterrupt, SystemExit):
            raise
        except Exception as exc:
            log.exception("tool %s failed", self.name)
            return ToolResult.error(
                f"{self.name} failed with {type(exc).__name__}: {exc}",
                "check the arguments and try once more, or take another approach; "
                "do not repeat the same call unchanged.",
                kind="exception",
            )

    # -- construction ------------------------------------------------------------------------

    @classmethod
    def from_function(
        cls,
        fn: Callable[..., Any],
        *,
        name: str | None = None,
        description: str | None = None,
        read_only: bool = False,
        toolset: str = "default",
        reads: Sequence[str] = (),
        writes: Sequence[str] = (),
        exclusive: bool = False,
        access: AccessFn | None = None,
        spill: bool = True,
        gated: bool = False,
    ) -> Tool:
        """A tool from a typed function (sync or async; may take ``ctx: ToolContext``).

        ``reads`` / ``writes`` name the arguments that are paths the call reads
        or writes; ``exclusive`` makes every call run alone; ``access``
        computes the resources itself.
        """
        signature = function_signature(fn, ToolContext)
        context_param = signature.context_param
        is_async = inspect.iscoroutinefunction(fn)

        async def handler(args: dict[str, Any], ctx: ToolContext) -> Any:
            kwargs = dict(args)
            if context_param is not None:
                kwargs[context_param] = ctx
            if is_async:
                return await fn(**kwargs)
            return await asyncio.to_thread(fn, **kwargs)

        return cls(
            name=name or fn.__name__,
            description=description or signature.description,
            parameters=signature.parameters,
            handler=handler,
            read_only=read_only,
            toolset=toolset,
            access=_declared_access(access, reads, writes, exclusive),
            spill=spill,
            nullable=signature.nullable,
            gated=gated,
        )

    @classmethod
    def from_schema(
        cls,
        name: str,
        schema: Mapping[str, Any],
        fn: Callable[..., Any],
        *,
        read_only: bool,
        description: str | None = None,
        toolset: str = "default",
        access: AccessFn | None = None,
        begin_turn: Callable[[], None] | None = None,
        close: Callable[[], None] | None = None,
        spill: bool = True,
        gated: bool = False,
    ) -> Tool:
        """Wrap a dict-in/dict-out callable with its schema as a tool.

        ``schema`` is either ``{"name", "description", "parameters"}`` (the
        ``SCHEMA`` dicts of the memory, archive and skills tools) or a bare
        parameters schema. ``fn`` takes ``(args)`` or ``(args, ctx)``, may be
        async, and returns a dict (sent as JSON; ``"success": false`` marks an
        error), a str or a ToolResult.
        """
        parameters = dict(schema["parameters"]) if "parameters" in schema else dict(schema)
        text = description or str(schema.get("description") or "")
        if not text:
            raise ValueError(f"tool {name!r} needs a description; the model reads it")
        takes_ctx = _positional_count(fn) >= 2
        # Instances with an async __call__ count as async too.
        dunder_call = type(fn).__dict__.get("__call__")
        is_async = inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(dunder_call)

        async def handler(args: dict[str, Any], ctx: ToolContext) -> Any:
            call_args: tuple[Any, ...] = (args, ctx) if takes_ctx else (args,)
            if is_async:
                return await fn(*call_args)
            return await asyncio.to_thread(fn, *call_args)

        nullable = frozenset((parameters.get("properties") or {}).keys())
        return cls(
            name=name,
            description=text,
            parameters=parameters,
            handler=handler,
            read_only=read_only,
            toolset=toolset,
            access=access,
            spill=spill,
            begin_turn=begin_turn,
            close=close,
            nullable=nullable,  # hand-written tools get what the model sent
            gated=gated,
        )


def _positional_count(fn: Callable[..., Any]) -> int:
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return 1
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    if any(p.kind is inspect.Parameter.VAR_POSITIONAL for p in params):
        return 2
    return sum(1 for p in params if p.kind in kinds)


def _declared_access(
    access: AccessFn | None, reads: Sequence[str], writes: Sequence[str], exclusive: bool
) -> AccessFn | None:
    if exclusive:
        return lambda args, ctx: Access.EXCLUSIVE
    if access is not None or not (reads or writes):
        return access

    def paths(args: dict[str, Any], ctx: ToolContext) -> Access:
        def resolved(names: Sequence[str]) -> list[Path]:
            return [ctx.resolve(str(args.get(n) or ".")) for n in names]

        return Access.of(reads=resolved(reads), writes=resolved(writes))

    return paths


@overload
def tool(fn: Callable[..., Any], /) -> Tool: ...


@overload
def tool(
    *,
    name: str | None = ...,
    read_only: bool = ...,
    toolset: str = ...,
    reads: Sequence[str] = ...,
    writes: Sequence[str] = ...,
    exclusive: bool = ...,
    access: AccessFn | None = ...,
    spill: bool = ...,
    gated: bool = ...,
) -> Callable[[Callable[..., Any]], Tool]: ...


def tool(fn: Callable[..., Any] | None = None, /, **options: Any) -> Any:
    """Decorator form of ``Tool.from_function``: ``@tool`` or ``@tool(read_only=True, ...)``."""
    if fn is not None:
        return Tool.from_function(fn)
    return lambda f: Tool.from_function(f, **options)


def to_result(value: Any) -> ToolResult:
    """Whatever a tool returned, as a result the model can read."""
    if isinstance(value, ToolResult):
        return value
    if value is None:
        return ToolResult("Done.")
    if isinstance(value, str):
        return ToolResult(value)
    if isinstance(value, Mapping):
        ok = value.get("success", True) is not False
        text = json.dumps(value, ensure_ascii=False, default=str)
        return ToolResult(text, ok=ok, data=dict(value))
    return ToolResult(str(value))
