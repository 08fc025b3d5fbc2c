"""A plugin with a hook that raises, a misspelt hook, and names that clash with built-ins."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def register_tools(register: Callable[..., None]) -> None:
    def half(x: int) -> int:
        """Half of x."""
        return x // 2

    register(half)  # discarded: the hook raises after it
    raise RuntimeError("broken on purpose")


def register_models(register: Callable[..., None]) -> None:
    def factory(request: Any) -> Any:
        raise AssertionError("never used: the built-in openai wins")

    register("openai", factory)  # clashes with the built-in


def register_modles(register: Callable[..., None]) -> None:  # a typo: not a hook
    raise AssertionError("never called")
