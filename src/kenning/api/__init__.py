"""Kenning's public Python API: ``Home``, ``Agent`` and the values they return.

Import from ``kenning`` (``from kenning import Agent, Home``); the names in
``kenning.__all__`` and their documented methods are the public, stable
surface (see the README section "Use Kenning from Python"). Everything else
in the package is internal and may change in any release.
"""

from kenning.api.agent import Agent
from kenning.api.errors import HomeClosedError, SessionNotFoundError
from kenning.api.facades import Journal, Memory, Sessions, Skills
from kenning.api.home import Home
from kenning.api.results import Hit, Hits, RunResult

__all__ = [
    "Agent",
    "Hit",
    "Hits",
    "Home",
    "HomeClosedError",
    "Journal",
    "Memory",
    "RunResult",
    "SessionNotFoundError",
    "Sessions",
    "Skills",
]
