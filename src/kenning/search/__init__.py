"""Hybrid search (FTS5 + embeddings) over archived messages and memory-file chunks.

Public API: ``SearchEngine`` (``search``, ``index_pending``, ``rebuild``,
``pending``), ``SearchFilters``, ``SearchHit``, ``SearchResult``,
``IndexReport``, ``RankParams`` and ``IndexIdentityError``. The design and
its measurements are in the module docstrings of ``engine`` and ``fusion``.
"""

from kenning.search.engine import SearchEngine
from kenning.search.fusion import RankParams
from kenning.storage.identity import IndexIdentityError
from kenning.storage.query import IndexReport, SearchFilters, SearchHit, SearchResult

__all__ = [
    "IndexIdentityError",
    "IndexReport",
    "RankParams",
    "SearchEngine",
    "SearchFilters",
    "SearchHit",
    "SearchResult",
]
