"""The [search] and [embedding] config sections and the Home wiring."""

from __future__ import annotations

from pathlib import Path

import pytest

from kenning.config import ConfigError, load
from kenning.embed import CachedEmbedder
from kenning.home import Home
from kenning.search import SearchEngine


def test_search_and_embedding_sections_layer_like_the_rest(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(
        '[search]\nextra_paths = ["notes/*.md", "/srv/wiki.md"]\nrecency_half_life_days = 7\n'
        '[embedding]\nprovider = "openai"\nbase_url = "http://127.0.0.1:11434/v1"\n'
    )
    cfg = load(path, environ={"KENNING_SEARCH__MMR_LAMBDA": "0.7"})
    assert cfg.search.extra_paths == ("notes/*.md", "/srv/wiki.md")
    assert cfg.search.recency_half_life_days == 7.0 and cfg.search.mmr_lambda == 0.7
    assert cfg.embedding.provider == "openai" and cfg.sources["embedding.provider"] == "file"
    env = load(None, environ={"KENNING_SEARCH__EXTRA_PATHS": "a.md, b.md"})
    assert env.search.extra_paths == ("a.md", "b.md")
    path.write_text("[search]\nextra_paths = 3\n")
    with pytest.raises(ConfigError, match="list of strings"):
        load(path, environ={})


def test_home_wires_a_cached_embedder_and_the_engine(tmp_path: Path) -> None:
    home = Home.open(tmp_path / "h", environ={})
    assert isinstance(home.embedder, CachedEmbedder)
    assert isinstance(home.search, SearchEngine) and home.search.layout is home.layout
    off = Home.open(tmp_path / "h2", environ={"KENNING_EMBEDDING__PROVIDER": "none"})
    assert off.embedder is None
    assert off.search.search("anything").mode == "keyword"
