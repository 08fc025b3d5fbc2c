"""``kenning.Home``: one Kenning home, from Python.

::

    from kenning import Home
    with Home.open() as home:                # KENNING_HOME / KENNING_PROFILE, like the CLI
        home.memory.add("Project uses pnpm")
        for hit in home.search("package manager"):
            print(hit.score, hit.text)

A thin facade over the runtime home (``kenning.home.Home``) the CLI opens:
the same configuration layers, the same stores, the same rules. Opening
creates nothing on disk; the first write does. ``close()`` (or leaving the
``with`` block) closes the archive connection and the search worker; after it
every use raises ``HomeClosedError``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cached_property
from pathlib import Path
from types import TracebackType
from typing import Any, Literal

from kenning.api.errors import HomeClosedError
from kenning.api.facades import Journal, Memory, Sessions, Skills
from kenning.api.results import Hits
from kenning.config import Config
from kenning.home import Home as Runtime
from kenning.storage.query import SCOPES, SearchFilters

SearchKind = Literal["all", "messages", "memory"]  # the keys of search.models.SCOPES


class Home:
    """A Kenning home: its memory, journal, skills, archive and search."""

    def __init__(self, runtime: Runtime) -> None:
        """Wrap an opened runtime home; most code wants ``Home.open()``."""
        self._runtime: Runtime | None = runtime
        self.root: Path = runtime.root

    @classmethod
    def open(
        cls,
        root: Path | str | None = None,
        *,
        profile: str | None = None,
        overrides: Mapping[str, Mapping[str, Any]] | None = None,
        environ: Mapping[str, str] | None = None,
    ) -> Home:
        """Open ``root``, or else the home the CLI would use.

        Without ``root``: ``KENNING_HOME``, else the profile (``profile`` or
        ``KENNING_PROFILE``), else ``~/.kenning``. Configuration is layered
        like the CLI's: defaults, ``config.toml``, ``KENNING_SECTION__KEY``
        variables (from ``environ``, default the process environment), then
        ``overrides`` (``{"search": {"limit": 5}}``, as ``--set`` would).
        Raises ``ConfigError`` or ``InvalidProfileError`` with the fix.
        """
        where = Path(root).expanduser() if root is not None else None
        return cls(Runtime.open(where, profile=profile, overrides=overrides, environ=environ))

    # -- lifetime ------------------------------------------------------------

    @property
    def closed(self) -> bool:
        return self._runtime is None

    def close(self) -> None:
        """Close the database connection and threads this home opened; idempotent."""
        runtime, self._runtime = self._runtime, None
        if runtime is not None:
            runtime.close()

    def __enter__(self) -> Home:
        self.runtime  # noqa: B018 - entering a closed home is the same mistake as using it
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    @property
    def runtime(self) -> Runtime:
        """The runtime home the CLI uses (``kenning.home.Home``).

        An escape hatch to internals: not covered by the stability policy.
        Raises ``HomeClosedError`` after ``close()``.
        """
        if self._runtime is None:
            raise HomeClosedError(self.root)
        return self._runtime

    def _opened(self) -> Runtime:
        return self.runtime

    # -- what is in it -------------------------------------------------------

    @property
    def config(self) -> Config:
        """The effective configuration (``kenning home config``), read-only."""
        return self.runtime.config

    @cached_property
    def memory(self) -> Memory:
        return Memory(self._opened)

    @cached_property
    def journal(self) -> Journal:
        return Journal(self._opened)

    @cached_property
    def skills(self) -> Skills:
        return Skills(self._opened)

    @cached_property
    def sessions(self) -> Sessions:
        return Sessions(self._opened)

    def search(
        self,
        query: str,
        *,
        limit: int = 10,
        kind: SearchKind = "all",
        sources: Sequence[str] = (),
    ) -> Hits:
        """Hybrid search over past sessions and the memory files, like ``kenning search``.

        ``kind`` is "all", "messages" or "memory"; ``sources`` keeps only
        sessions of those sources. New messages are indexed first. A query
        that matches nothing closely enough returns no hits and says so in
        ``notes`` (it abstains rather than guess).
        """
        if kind not in SCOPES:
            raise ValueError(f"unknown search kind {kind!r}; use one of {list(SCOPES)}")
        result = self.runtime.search.search(
            query, kinds=SCOPES[kind], limit=limit, filters=SearchFilters(sources=tuple(sources))
        )
        return Hits.from_search(result)

    def __repr__(self) -> str:
        state = " closed" if self.closed else ""
        return f"<kenning.Home {self.root}{state}>"
