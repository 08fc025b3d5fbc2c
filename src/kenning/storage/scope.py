"""A search scope (``SearchFilters``) as `` AND …`` clauses and their parameters, for every
SQL backend: the conditions are the same, only how a parameter and a list are written
differs (:class:`Dialect`). Filters are part of the SQL on both retrievers, so rows outside
the scope are never scored and can never leak into results."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from kenning.storage.query import SearchFilters


@dataclass(frozen=True)
class Dialect:
    mark: str  # one parameter: "?" (sqlite3) or "%s" (psycopg)
    # "column IN (…)" or its negation, with the parameters it takes
    among: Callable[[str, tuple[str, ...], bool], tuple[str, list[object]]]


def _in_list(column: str, values: tuple[str, ...], negate: bool) -> tuple[str, list[object]]:
    marks = ",".join("?" * len(values))
    return f"{column} {'NOT IN' if negate else 'IN'} ({marks})", list(values)


def _any_array(column: str, values: tuple[str, ...], negate: bool) -> tuple[str, list[object]]:
    return (f"{column} <> ALL(%s)" if negate else f"{column} = ANY(%s)"), [list(values)]


SQLITE = Dialect("?", _in_list)
POSTGRES = Dialect("%s", _any_array)


def messages(scope: SearchFilters, dialect: Dialect) -> tuple[str, list[object]]:
    """`` AND …`` clauses over ``messages m`` joined with ``sessions s``."""
    p = dialect.mark
    clauses: list[str] = []
    params: list[object] = []
    for column, values, negate in (
        ("s.source", scope.sources, False),
        ("m.role", scope.roles, False),
        ("m.session_id", scope.session_ids, False),
        ("m.session_id", scope.exclude_session_ids, True),
    ):
        if values:
            clause, values_params = dialect.among(column, values, negate)
            clauses.append(clause)
            params.extend(values_params)
    if scope.exclude_live_of is not None:
        clauses.append(f"NOT (m.session_id = {p} AND m.active = 1)")
        params.append(scope.exclude_live_of)
    for column, value in (("s.workspace", scope.workspace), ("s.user_id", scope.user_id)):
        if value is not None:
            clauses.append(f"{column} = {p}")
            params.append(value)
    if scope.since is not None:
        clauses.append(f"m.created_at >= {p}")
        params.append(scope.since)
    if scope.until is not None:
        clauses.append(f"m.created_at < {p}")
        params.append(scope.until)
    return "".join(f" AND {c}" for c in clauses), params


def chunks(scope: SearchFilters, dialect: Dialect) -> tuple[str, list[object]]:
    """`` AND …`` clauses over ``memory_files mf`` (date range only)."""
    p = dialect.mark
    clauses: list[str] = []
    params: list[object] = []
    if scope.since is not None:
        clauses.append(f"(mf.decays = 0 OR mf.dated_at >= {p})")
        params.append(scope.since)
    if scope.until is not None:
        clauses.append(f"(mf.decays = 0 OR mf.dated_at < {p})")
        params.append(scope.until)
    return "".join(f" AND {c}" for c in clauses), params
