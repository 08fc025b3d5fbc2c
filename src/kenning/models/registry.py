"""From a model string and ``[model]`` config to a ready ``Model``.

``resolve_model("ollama:qwen3", config)`` and friends. A model string is
``provider:model`` (the model part may itself contain colons, as Ollama tags
do) or a bare model name served at ``[model] base_url``.

Precedence: for the base URL, ``[model] base_url`` > the provider's variable
(``OPENAI_BASE_URL``, ``ANTHROPIC_BASE_URL``, ``OLLAMA_HOST``) > the
provider's default; for the key, the variable named by ``[model] api_key_env``
> the provider's usual variables. Keys are read from the environment only,
never from config. A hosted provider without its key, or no model at all,
raises ``ModelNotConfigured`` with the exact fix; nothing is guessed silently.

``MODEL_FACTORIES`` holds the built-in prefixes; ``register_provider(name,
factory)`` adds one in-process. Installed plugins add prefixes through their
``register_models`` hook (``kenning.plugins``); they are looked up only for a
prefix that is not built in, and a built-in of the same name wins.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal
from urllib.parse import urlparse

from kenning.config import ModelConfig
from kenning.models.anthropic import ANTHROPIC_BASE_URL, AnthropicModel
from kenning.models.errors import ModelNotConfigured
from kenning.models.local import is_loopback, served_window
from kenning.models.openai import OPENAI_BASE_URL, OpenAIChatModel
from kenning.models.retry import RetryPolicy
from kenning.models.types import Model


@dataclass(frozen=True)
class Provider:
    """A built-in provider: which wire format, where, and which key."""

    name: str
    wire: Literal["openai", "anthropic"]
    base_url: str
    key_envs: tuple[str, ...] = ()
    base_url_env: str | None = None
    key_url: str = ""  # where a person gets a key, for the error message
    local: bool = False  # a server on this machine: no key, small default window

    @property
    def hosted(self) -> bool:
        return not self.local


PROVIDERS: dict[str, Provider] = {
    p.name: p
    for p in (
        Provider(
            "openai",
            "openai",
            OPENAI_BASE_URL,
            key_envs=("OPENAI_API_KEY",),
            base_url_env="OPENAI_BASE_URL",
            key_url="https://platform.openai.com/api-keys",
        ),
        Provider(
            "anthropic",
            "anthropic",
            ANTHROPIC_BASE_URL,
            key_envs=("ANTHROPIC_API_KEY",),
            base_url_env="ANTHROPIC_BASE_URL",
            key_url="https://console.anthropic.com/settings/keys",
        ),
        Provider(
            "openrouter",
            "openai",
            "https://openrouter.ai/api/v1",
            key_envs=("OPENROUTER_API_KEY",),
            base_url_env="OPENROUTER_BASE_URL",
            key_url="https://openrouter.ai/keys",
        ),
        Provider(
            "deepseek",
            "openai",
            "https://api.deepseek.com/v1",
            key_envs=("DEEPSEEK_API_KEY",),
            base_url_env="DEEPSEEK_BASE_URL",
            key_url="https://platform.deepseek.com/api_keys",
        ),
        Provider("ollama", "openai", "http://localhost:11434/v1", local=True),
        Provider("lmstudio", "openai", "http://localhost:1234/v1", local=True),
        Provider("llamacpp", "openai", "http://localhost:8080/v1", local=True),
        Provider(
            "vllm", "openai", "http://localhost:8000/v1", key_envs=("VLLM_API_KEY",), local=True
        ),
    )
}

# Known context windows, matched by the longest prefix of the model name
# (lower-cased, any "vendor/" path dropped: OpenRouter's "anthropic/claude-…").
# Local entries are the model's native window; a local server may run it with
# less (Ollama's default num_ctx is small): set [model] context_window then.
CONTEXT_WINDOWS: dict[str, int] = {
    "gpt-5": 400_000,
    "gpt-4.1": 1_047_576,
    "gpt-4o": 128_000,
    "gpt-4-turbo": 128_000,
    "gpt-4": 8_192,
    "gpt-3.5-turbo": 16_385,
    "gpt-oss": 131_072,
    "o1-mini": 128_000,
    "o1": 200_000,
    "o3": 200_000,
    "o4-mini": 200_000,
    "claude": 200_000,
    "deepseek": 128_000,
    "gemini": 1_048_576,
    "qwen3-coder": 262_144,
    "qwen3": 32_768,
    "qwen2.5": 32_768,
    "llama3.1": 131_072,
    "llama3.2": 131_072,
    "llama3.3": 131_072,
    "llama3": 8_192,
    "llama-3.1": 131_072,
    "llama-3.3": 131_072,
    "mistral": 32_768,
    "mixtral": 32_768,
    "gemma3": 131_072,
    "gemma2": 8_192,
    "phi4": 16_384,
    "kimi-k2": 131_072,
    "glm-4": 131_072,
}
# Unknown models: what hosted APIs commonly offer; local servers get less, as
# overestimating means the server truncates or refuses before we compact.
DEFAULT_CONTEXT_WINDOW = 128_000
DEFAULT_LOCAL_CONTEXT_WINDOW = 32_768


def context_window_for(model: str, *, local: bool = False, override: int = 0) -> int:
    """``override`` if set, else the known window for ``model``, else a conservative default."""
    if override > 0:
        return override
    key = model.lower().rsplit("/", 1)[-1]
    for prefix in sorted(CONTEXT_WINDOWS, key=len, reverse=True):
        if key.startswith(prefix):
            return CONTEXT_WINDOWS[prefix]
    return DEFAULT_LOCAL_CONTEXT_WINDOW if local else DEFAULT_CONTEXT_WINDOW


@dataclass(frozen=True)
class ModelRequest:
    """What a provider factory is given to build a model."""

    spec: str  # as the user wrote it: the model's display name
    provider: str
    model: str
    config: ModelConfig
    environ: Mapping[str, str]
    retry: RetryPolicy
    # Ask a local server for the window it runs the model with (one short call).
    probe: bool = True


ModelFactory = Callable[[ModelRequest], Model]


def _base_url(provider: Provider, req: ModelRequest) -> tuple[str, bool]:
    """(URL, whether the user pointed it somewhere other than the default)."""
    if req.config.base_url:
        return req.config.base_url, True
    if provider.base_url_env and req.environ.get(provider.base_url_env):
        return req.environ[provider.base_url_env], True
    if provider.name == "ollama" and req.environ.get("OLLAMA_HOST"):
        host = req.environ["OLLAMA_HOST"].rstrip("/")
        host = host if "://" in host else f"http://{host}"
        return f"{host}/v1", True
    return provider.base_url, False


def _api_key(
    provider: Provider, req: ModelRequest, required: bool
) -> tuple[str | None, str | None]:
    """(key, name of the variable it came from)."""
    named = req.config.api_key_env
    if named:
        if req.environ.get(named):
            return req.environ[named], named
        raise ModelNotConfigured(
            f"{req.spec}: [model] api_key_env says the key is in {named}, "
            f"but {named} is not set. Run: export {named}=<your key>"
        )
    for name in provider.key_envs:
        if req.environ.get(name):
            return req.environ[name], name
    usual = provider.key_envs[0] if provider.key_envs else None
    if required and usual:
        where = f" (get one at {provider.key_url})" if provider.key_url else ""
        raise ModelNotConfigured(
            f"{req.spec} needs an API key and {usual} is not set.\n"
            f"  export {usual}=<your key>{where}\n"
            "or keep the key in another variable and name it in config.toml:\n"
            "  [model]\n"
            f'  api_key_env = "MY_{provider.name.upper()}_KEY"'
        )
    return None, usual


def build_builtin(provider: Provider, req: ModelRequest) -> Model:
    """The factory behind every entry of ``PROVIDERS``."""
    base_url, custom = _base_url(provider, req)
    # A key is required by the hosted default endpoint; a server the user
    # pointed us at (a proxy, a local vLLM) may need none.
    key, key_env = _api_key(provider, req, required=provider.hosted and not custom)
    local = provider.local or (custom and is_loopback(base_url))
    window = context_window_for(req.model, local=local, override=req.config.context_window)
    note = ""
    # Only a server on this machine is asked: one short call, never off the machine.
    probe = req.probe and is_loopback(base_url) and not req.config.context_window
    if local and provider.wire == "openai" and probe:
        window, note = _served(provider.name, base_url, req.model, window)
    if provider.wire == "anthropic":
        return AnthropicModel(
            req.model,
            base_url=base_url,
            api_key=key,
            name=req.spec,
            provider=provider.name,
            context_window=window,
            max_output_tokens=req.config.max_output_tokens,
            timeout_s=req.config.timeout_s,
            retry=req.retry,
            key_env=key_env,
        )
    model = OpenAIChatModel(
        req.model,
        base_url=base_url,
        api_key=key,
        name=req.spec,
        provider=provider.name,
        context_window=window,
        max_tokens_field=(
            "max_completion_tokens" if provider.name == "openai" and not custom else "max_tokens"
        ),
        timeout_s=req.config.timeout_s,
        retry=req.retry,
        key_env=key_env,
    )
    model.window_note = note
    return model


# Below this many tokens Kenning's own prompt (system prompt and tool schemas,
# ~4k) leaves little room for the conversation: say how to give it more.
SMALL_WINDOW = 16_384


def _served(provider: str, base_url: str, model: str, known: int) -> tuple[int, str]:
    """The window the local server really runs ``model`` with, and a note when it is small.

    The server's number wins over the table: a prompt longer than the
    server's window is cut by the server without a word.
    """
    served = served_window(provider, base_url, model)
    if served is None:
        return known, ""
    window = min(served.tokens, served.native or served.tokens)
    note = ""
    if window < SMALL_WINDOW:
        note = (
            f"{model} runs with a {window:,}-token window ({served.source}); Kenning's own "
            f"prompt takes ~4k of it, so sessions will compact often."
        )
        if served.advice:
            note += f" To give it more: {served.advice}."
    return window, note


def _builtin(provider: Provider) -> ModelFactory:
    return lambda req: build_builtin(provider, req)


MODEL_FACTORIES: dict[str, ModelFactory] = {name: _builtin(p) for name, p in PROVIDERS.items()}


def register_provider(name: str, factory: ModelFactory) -> None:
    """Make ``name:MODEL`` strings resolve through ``factory`` (replaces a built-in)."""
    MODEL_FACTORIES[name.lower()] = factory


def plugin_factories() -> dict[str, ModelFactory]:
    """The model prefixes installed plugins add (loads the plugins on first use)."""
    from kenning import plugins

    return plugins.registry().accepted("models", MODEL_FACTORIES)


def _custom_server(req: ModelRequest) -> Model:
    """A bare model name on the OpenAI-compatible server at ``[model] base_url``."""
    base_url = req.config.base_url
    provider = Provider(
        urlparse(base_url).netloc or "server",
        "openai",
        base_url,
        # Only [model] api_key_env: an OpenAI key is not sent to a server the
        # user did not say is OpenAI.
        local=is_loopback(base_url),
    )
    return build_builtin(provider, req)


def how_to_configure(config_path: Path | None = None) -> str:
    """The message for "no model": every way to set one, with examples."""
    where = str(config_path) if config_path else "see `kenning config path`"
    return (
        "No model is configured. Choose one in any of these ways:\n"
        "  • for one run:       kenning chat --model openai:gpt-4.1-mini\n"
        "  • in the environment: export KENNING_MODEL__DEFAULT=anthropic:claude-sonnet-4-5\n"
        f"  • in config.toml ({where}):\n"
        "      [model]\n"
        '      default = "ollama:qwen3"\n'
        "Hosted providers read their key from the environment: OPENAI_API_KEY, "
        "ANTHROPIC_API_KEY, OPENROUTER_API_KEY, DEEPSEEK_API_KEY.\n"
        "Local servers need no key: ollama:MODEL (http://localhost:11434/v1), "
        "lmstudio:MODEL, llamacpp:MODEL, vllm:MODEL, or any OpenAI-compatible server via\n"
        "      [model]\n"
        '      base_url = "http://localhost:8080/v1"\n'
        '      default = "MODEL-NAME"'
    )


def _infer_provider(model: str, environ: Mapping[str, str]) -> str | None:
    lowered = model.lower()
    if lowered.startswith("claude"):
        return "anthropic"
    if lowered.startswith(("gpt-", "chatgpt", "o1", "o3", "o4")) or environ.get("OPENAI_BASE_URL"):
        return "openai"
    return None


def resolve_model(
    spec: str | None,
    config: ModelConfig,
    environ: Mapping[str, str] = os.environ,
    *,
    config_path: Path | None = None,
    retry: RetryPolicy | None = None,
) -> Model:
    """The model named by ``spec`` (``--model``) or else ``[model] default``.

    ``retry`` replaces the policy built from ``[model] max_retries`` (tests
    inject a fake sleep this way).
    """
    written = (spec or "").strip() or config.default.strip()
    if not written:
        raise ModelNotConfigured(how_to_configure(config_path))
    policy = retry or RetryPolicy(max_retries=config.max_retries)
    prefix, colon, rest = written.partition(":")
    prefix = prefix.strip().lower()

    def request(provider: str, model: str) -> ModelRequest:
        return ModelRequest(written, provider, model, config, environ, policy)

    # A built-in prefix never loads the plugins; an unknown one does, once.
    factory = (MODEL_FACTORIES.get(prefix) or plugin_factories().get(prefix)) if colon else None
    if factory is not None:
        if not rest.strip():
            raise ModelNotConfigured(
                f"{written!r} names the provider but no model; e.g. {prefix}:MODEL-NAME"
            )
        return factory(request(prefix, rest.strip()))
    if config.base_url:
        return _custom_server(request("", written))
    if colon and "/" not in prefix and "." not in prefix:
        known = ", ".join(sorted({*MODEL_FACTORIES, *plugin_factories()}))
        raise ModelNotConfigured(
            f"unknown model provider {prefix!r} in {written!r}. Known providers: {known}.\n"
            f"If {written!r} is a model name, write ollama:{written} (or another provider), "
            "or serve it from an OpenAI-compatible server named in config.toml:\n"
            "  [model]\n"
            '  base_url = "http://HOST:PORT/v1"'
        )
    inferred = _infer_provider(written, environ)
    if inferred is None:
        raise ModelNotConfigured(
            f"cannot tell which provider serves {written!r}: write it as PROVIDER:MODEL "
            f"(e.g. ollama:{written}, openrouter:{written}) or set [model] base_url "
            "to the OpenAI-compatible server that runs it."
        )
    return MODEL_FACTORIES[inferred](request(inferred, written))
