"""A search scope as postgres clauses: :mod:`kenning.storage.scope` in this backend's dialect."""

from __future__ import annotations

from kenning.storage import scope as _scope
from kenning.storage.query import SearchFilters


def messages(scope: SearchFilters) -> tuple[str, list[object]]:
    """`` AND …`` clauses over ``messages m`` joined with ``sessions s``."""
    return _scope.messages(scope, _scope.POSTGRES)


def chunks(scope: SearchFilters) -> tuple[str, list[object]]:
    """`` AND …`` clauses over ``memory_files mf`` (date range only)."""
    return _scope.chunks(scope, _scope.POSTGRES)
