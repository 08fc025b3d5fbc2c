"""Lifecycle hooks: named points where later layers attach behaviour.

The context engine acts at ``turn_start`` / before requests, the background
review at ``turn_end``, plug-ins wherever they like. A hook is a plain or
async callable taking the agent session and one payload; hooks run in the
order they were added. A failing hook is reported as a notice and never breaks
the user's turn: the loop owns correctness, hooks only add to it.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Awaitable, Callable
from typing import Any, Literal

HookName = Literal["turn_start", "turn_end", "tool_start", "tool_end", "session_end"]
HOOK_NAMES: tuple[str, ...] = ("turn_start", "turn_end", "tool_start", "tool_end", "session_end")
Hook = Callable[[Any, Any], Awaitable[None] | None]

log = logging.getLogger(__name__)


class Hooks:
    def __init__(self) -> None:
        self._hooks: dict[str, list[Hook]] = {name: [] for name in HOOK_NAMES}

    def add(self, name: HookName, hook: Hook) -> None:
        if name not in self._hooks:
            raise ValueError(f"unknown hook {name!r}; use one of {HOOK_NAMES}")
        self._hooks[name].append(hook)

    async def emit(self, name: HookName, session: Any, payload: Any = None) -> list[str]:
        """Run the hooks for ``name``; returns one message per hook that failed."""
        failures: list[str] = []
        for hook in self._hooks[name]:
            try:
                result = hook(session, payload)
                if inspect.isawaitable(result):
                    await result
            except Exception as exc:  # a plug-in's bug must not end the user's turn
                log.debug("hook %s failed", name, exc_info=True)
                failures.append(f"{name} hook {getattr(hook, '__name__', hook)!r} failed: {exc}")
        return failures
