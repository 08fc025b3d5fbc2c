"""The context engine: long sessions that keep every rule and every identifier.

Stages, cheapest first (DESIGN.md §3): spill (in ``kenning.tools.spill``),
prune (``prune``), flush (``flush``), compact (``compact``) checked by the
guard (``guard``); ``tokens`` and ``budget`` measure; ``engine`` ties them
together for the agent loop and ``report`` holds what it reports. They work on
the live ``transcript`` of a session, through ``session.ContextSession``: what
the engine needs of a session, so it never imports the loop.
"""

from kenning.context.engine import ContextEngine, compact_now
from kenning.context.report import CompactionReport, ContextStatus

__all__ = ["CompactionReport", "ContextEngine", "ContextStatus", "compact_now"]
