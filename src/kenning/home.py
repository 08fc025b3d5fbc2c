"""``Home``: one Kenning home opened with its effective configuration.

This is the runtime object every part of Kenning is handed (the CLI, the
agent loop, the MCP server, the learning loop). The public Python API
(``kenning.Home``, ``kenning.api``) is a typed facade over it::

    from kenning.home import Home
    home = Home.open()                      # KENNING_HOME / --profile aware
    home.memory.add(Target.USER, "Prefers answers in British English")
    print(home.snapshot().render())

Opening a home creates nothing on disk; the first write does. ``close()``
releases what was opened since (the archive connection, the search worker).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cached_property
from pathlib import Path
from typing import Any

from kenning import config as config_mod
from kenning import paths
from kenning.archive.store import Archive
from kenning.embed import PROVIDERS, CachedEmbedder, Embedder, from_config, plugin_embedders
from kenning.history import History
from kenning.journal import Journal
from kenning.memory.proposals import ProposalQueue
from kenning.memory.snapshot import MemorySnapshot
from kenning.memory.store import MemoryStore
from kenning.search.engine import SearchEngine
from kenning.storage import Storage, open_storage


class Home:
    def __init__(self, root: Path, config: config_mod.Config) -> None:
        self.root = root
        self.layout = paths.HomeLayout(root)
        self.config = config

    @classmethod
    def open(
        cls,
        root: Path | None = None,
        *,
        profile: str | None = None,
        overrides: Mapping[str, Mapping[str, Any]] | None = None,
        environ: Mapping[str, str] | None = None,
    ) -> Home:
        """Open ``root`` (default: the home of ``profile``) with layered config."""
        where = root if root is not None else paths.home(profile)
        cfg = config_mod.load(paths.HomeLayout(where).config_file, environ=environ, cli=overrides)
        _check_embedder_name(cfg, paths.HomeLayout(where).config_file)
        return cls(where, cfg)

    @cached_property
    def history(self) -> History:
        return History(self.root, enabled=self.config.history.enabled)

    @cached_property
    def memory(self) -> MemoryStore:
        return MemoryStore(self.layout, self.config.memory, self.history)

    @cached_property
    def proposals(self) -> ProposalQueue:
        """Memory entries held for the user's decision (see kenning.memory.proposals)."""
        return ProposalQueue(self.layout, self.history, self.memory)

    @cached_property
    def archive(self) -> Archive:
        return Archive(self.layout.state_db, storage=self.open_storage())

    def open_storage(self, *, read_only: bool = False) -> Storage:
        """The home's storage as configured: ``state.db``, or ``[storage] url``'s server."""
        cfg = self.config.storage
        return open_storage(
            self.layout.state_db,
            url=cfg.url or None,
            schema=cfg.schema or None,
            read_only=read_only,
        )

    @property
    def has_archive(self) -> bool:
        """Whether an archive may exist yet (a server's always may; a file only once made)."""
        return bool(self.config.storage.url) or self.layout.state_db.exists()

    @cached_property
    def journal(self) -> Journal:
        return Journal(self.layout, self.history)

    @cached_property
    def embedder(self) -> Embedder | None:
        """The configured embedder behind the state.db embedding cache; None = keyword only."""
        inner = from_config(self.config.embedding)
        return (
            None if inner is None else CachedEmbedder(inner, self.archive.storage.embedding_cache)
        )

    @cached_property
    def search(self) -> SearchEngine:
        """Hybrid search over the archive and the memory files."""
        return SearchEngine(self.archive, self.embedder, self.config.search, layout=self.layout)

    def snapshot(self) -> MemorySnapshot:
        """A frozen hot-memory snapshot for a new session."""
        return MemorySnapshot.capture(self.memory)

    def close(self) -> None:
        """Close the connections and threads opened so far; idempotent.

        Only what was opened is touched (``cached_property`` keeps it in
        ``__dict__``), so closing a home that never searched loads no embedder.
        """
        opened = self.__dict__
        if "search" in opened:
            opened["search"].close()
        if "archive" in opened:
            opened["archive"].close()


def _check_embedder_name(cfg: config_mod.Config, path: Path) -> None:
    """ConfigError for an ``[embedding] provider`` no built-in or plugin has.

    Config alone cannot tell (plugins add names and reading config loads
    none), so the check is here, when a home opens: a typo is reported at
    once, as for any other setting. Plugins load only for a name that is not
    built in.
    """
    name = cfg.embedding.provider
    if name in PROVIDERS or name in plugin_embedders():
        return
    known = ", ".join([*PROVIDERS, *sorted(plugin_embedders())])
    origin = config_mod.origin_of(cfg, "embedding", "provider", path)
    raise config_mod.ConfigError(
        f"{origin}: {name!r} is not an embedder; [embedding] provider must be one of {known} "
        "(plugins add names: see `kenning plugins`)"
    )
