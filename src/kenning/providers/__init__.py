"""Memory providers: outside memory beside Kenning's own, at most one per session.

``base`` holds the contract (``MemoryProvider``) and the fence recalled text
reaches the model in; ``manager`` chooses the provider from ``[memory]
provider`` and calls it time-boxed; ``team`` is the one that ships: another
Kenning home over ``kenning mcp --http``.

This package depends on no part of the agent (``kenning.agent``,
``kenning.context``, ``kenning.learning``): the agent calls it, never the
other way round.
"""

from __future__ import annotations

from kenning.providers.base import (
    FENCE_CLOSE,
    FENCE_OPEN,
    MemoryProvider,
    MemoryProviders,
    MemoryWrite,
    ProviderError,
    ProviderFactory,
    ProviderSetup,
    Recall,
    fence,
    sanitise,
)
from kenning.providers.manager import BUILTIN, ProviderManager, available, from_config

__all__ = [
    "BUILTIN",
    "FENCE_CLOSE",
    "FENCE_OPEN",
    "MemoryProvider",
    "MemoryProviders",
    "MemoryWrite",
    "ProviderError",
    "ProviderFactory",
    "ProviderManager",
    "ProviderSetup",
    "Recall",
    "available",
    "fence",
    "from_config",
    "sanitise",
]
