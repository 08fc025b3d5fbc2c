"""A search scope (``SearchFilters``) as PostgreSQL: `` AND …`` clauses and parameters.

The same conditions as ``storage.sqlite.scope``, with arrays for the lists
(``= ANY(%s)``), so rows outside the scope are never scored on either side.
"""

from __future__ import annotations

from kenning.storage.query import SearchFilters


def messages(scope: SearchFilters) -> tuple[str, list[object]]:
    """`` AND …`` clauses over ``messages m`` joined with ``sessions s``."""
    clauses: list[str] = []
    params: list[object] = []

    def among(column: str, values: tuple[str, ...], negate: bool = False) -> None:
        if values:
            clauses.append(f"{column} <> ALL(%s)" if negate else f"{column} = ANY(%s)")
            params.append(list(values))

    among("s.source", scope.sources)
    among("m.role", scope.roles)
    among("m.session_id", scope.session_ids)
    among("m.session_id", scope.exclude_session_ids, negate=True)
    if scope.exclude_live_of is not None:
        clauses.append("NOT (m.session_id = %s AND m.active = 1)")
        params.append(scope.exclude_live_of)
    for column, value in (("s.workspace", scope.workspace), ("s.user_id", scope.user_id)):
        if value is not None:
            clauses.append(f"{column} = %s")
            params.append(value)
    if scope.since is not None:
        clauses.append("m.created_at >= %s")
        params.append(scope.since)
    if scope.until is not None:
        clauses.append("m.created_at < %s")
        params.append(scope.until)
    return "".join(f" AND {c}" for c in clauses), params


def chunks(scope: SearchFilters) -> tuple[str, list[object]]:
    """`` AND …`` clauses over ``memory_files mf`` (date range only)."""
    clauses: list[str] = []
    params: list[object] = []
    if scope.since is not None:
        clauses.append("(mf.decays = 0 OR mf.dated_at >= %s)")
        params.append(scope.since)
    if scope.until is not None:
        clauses.append("(mf.decays = 0 OR mf.dated_at < %s)")
        params.append(scope.until)
    return "".join(f" AND {c}" for c in clauses), params
