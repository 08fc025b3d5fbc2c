"""Model strings, keys and base URLs from the environment, and the messages when missing."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from kenning.config import ModelConfig
from kenning.models import AnthropicModel, ChatMessage, Model, ModelNotConfigured, OpenAIChatModel
from kenning.models.registry import (
    DEFAULT_CONTEXT_WINDOW,
    DEFAULT_LOCAL_CONTEXT_WINDOW,
    MODEL_FACTORIES,
    ModelRequest,
    context_window_for,
    register_provider,
    resolve_model,
)
from kenning.testing import ScriptedModel
from kenning.testing.wire import OpenAIServer

CONFIG = ModelConfig()


def test_no_model_says_every_way_to_configure_one() -> None:
    with pytest.raises(ModelNotConfigured) as caught:
        resolve_model(None, CONFIG, {}, config_path=Path("/home/me/.kenning/config.toml"))
    text = str(caught.value)
    for needle in (
        "--model",
        "export KENNING_MODEL__DEFAULT=",
        "[model]",
        'default = "ollama:qwen3"',
        "/home/me/.kenning/config.toml",
        "OPENAI_API_KEY",
        "ANTHROPIC_API_KEY",
        "base_url",
    ):
        assert needle in text
    with pytest.raises(ModelNotConfigured, match="kenning config path"):
        resolve_model("  ", CONFIG, {})


def test_openai_model_string() -> None:
    model = resolve_model("openai:gpt-4.1-mini", CONFIG, {"OPENAI_API_KEY": "sk-1"})
    assert isinstance(model, OpenAIChatModel) and isinstance(model, Model)
    assert model.name == "openai:gpt-4.1-mini" and model.model == "gpt-4.1-mini"
    assert model.endpoint.url == "https://api.openai.com/v1/chat/completions"
    assert model.endpoint.headers["Authorization"] == "Bearer sk-1"
    assert model.context_window == 1_047_576
    assert model.max_tokens_field == "max_completion_tokens"
    assert model.retry.max_retries == CONFIG.max_retries
    assert model.timeout_s == CONFIG.timeout_s


def test_missing_key_says_how_to_set_it() -> None:
    with pytest.raises(ModelNotConfigured) as caught:
        resolve_model("openai:gpt-4o", CONFIG, {})
    text = str(caught.value)
    assert "OPENAI_API_KEY is not set" in text and "export OPENAI_API_KEY=" in text
    assert "api_key_env" in text and "platform.openai.com" in text
    for spec, var in [
        ("anthropic:claude-sonnet-4-5", "ANTHROPIC_API_KEY"),
        ("openrouter:qwen/qwen3-coder", "OPENROUTER_API_KEY"),
        ("deepseek:deepseek-chat", "DEEPSEEK_API_KEY"),
    ]:
        with pytest.raises(ModelNotConfigured, match=f"export {var}="):
            resolve_model(spec, CONFIG, {})


def test_anthropic_model_string_and_base_url_variable() -> None:
    env = {"ANTHROPIC_API_KEY": "sk-ant", "ANTHROPIC_BASE_URL": "http://127.0.0.1:9/"}
    model = resolve_model("anthropic:claude-sonnet-4-5", CONFIG, env)
    assert isinstance(model, AnthropicModel)
    assert model.endpoint.url == "http://127.0.0.1:9/v1/messages"
    assert model.endpoint.headers["x-api-key"] == "sk-ant"
    assert model.context_window == 200_000
    assert model.max_output_tokens == CONFIG.max_output_tokens
    default = resolve_model("anthropic:claude-opus-4-1", CONFIG, {"ANTHROPIC_API_KEY": "k"})
    assert default.endpoint.url == "https://api.anthropic.com/v1/messages"  # type: ignore[attr-defined]


def test_openai_base_url_variable_needs_no_key() -> None:
    model = resolve_model(
        "openai:local-model", CONFIG, {"OPENAI_BASE_URL": "http://127.0.0.1:8000/v1"}
    )
    assert isinstance(model, OpenAIChatModel)
    assert model.base_url == "http://127.0.0.1:8000/v1"
    assert "Authorization" not in model.endpoint.headers
    assert model.max_tokens_field == "max_tokens"  # a compatible server, not OpenAI itself


@pytest.mark.parametrize(
    ("spec", "url", "model_name"),
    [
        ("ollama:qwen3", "http://localhost:11434/v1", "qwen3"),
        ("ollama:qwen3:8b", "http://localhost:11434/v1", "qwen3:8b"),
        ("lmstudio:google/gemma-3-12b", "http://localhost:1234/v1", "google/gemma-3-12b"),
        ("llamacpp:any", "http://localhost:8080/v1", "any"),
        ("vllm:Qwen/Qwen3-8B", "http://localhost:8000/v1", "Qwen/Qwen3-8B"),
    ],
)
def test_local_servers_need_no_key(spec: str, url: str, model_name: str) -> None:
    model = resolve_model(spec, CONFIG, {})
    assert isinstance(model, OpenAIChatModel)
    assert model.base_url == url and model.model == model_name and model.name == spec
    assert "Authorization" not in model.endpoint.headers


def test_ollama_host_variable() -> None:
    model = resolve_model("ollama:qwen3", CONFIG, {"OLLAMA_HOST": "10.0.0.5:11434"})
    assert model.base_url == "http://10.0.0.5:11434/v1"  # type: ignore[attr-defined]


def test_hosted_openai_compatible_providers() -> None:
    router = resolve_model(
        "openrouter:anthropic/claude-sonnet-4.5", CONFIG, {"OPENROUTER_API_KEY": "or"}
    )
    assert isinstance(router, OpenAIChatModel)
    assert router.base_url == "https://openrouter.ai/api/v1"
    assert router.context_window == 200_000  # vendor path dropped for the lookup
    deep = resolve_model("deepseek:deepseek-chat", CONFIG, {"DEEPSEEK_API_KEY": "ds"})
    assert deep.endpoint.headers["Authorization"] == "Bearer ds"  # type: ignore[attr-defined]


def test_bare_model_with_config_base_url() -> None:
    config = ModelConfig(default="my-model", base_url="http://127.0.0.1:8080/v1")
    env = {"OPENAI_API_KEY": "sk-not-for-this-server"}
    model = resolve_model(None, config, env)
    assert isinstance(model, OpenAIChatModel)
    assert model.name == "my-model" and model.base_url == "http://127.0.0.1:8080/v1"
    assert "Authorization" not in model.endpoint.headers  # an OpenAI key stays with OpenAI
    assert model.context_window == DEFAULT_LOCAL_CONTEXT_WINDOW
    keyed = ModelConfig(
        default="my-model", base_url="http://127.0.0.1:8080/v1", api_key_env="LOCAL_KEY"
    )
    with_key = resolve_model(None, keyed, {"LOCAL_KEY": "abc"})
    assert with_key.endpoint.headers["Authorization"] == "Bearer abc"  # type: ignore[attr-defined]


def test_config_base_url_overrides_the_provider() -> None:
    config = ModelConfig(base_url="http://127.0.0.1:4000")
    model = resolve_model("anthropic:claude-haiku-4-5", config, {"ANTHROPIC_BASE_URL": "http://x"})
    assert model.endpoint.url == "http://127.0.0.1:4000/v1/messages"  # type: ignore[attr-defined]


def test_api_key_env_that_is_unset() -> None:
    config = ModelConfig(api_key_env="WORK_OPENAI_KEY")
    with pytest.raises(ModelNotConfigured, match=r"WORK_OPENAI_KEY is not set"):
        resolve_model("openai:gpt-4o", config, {"OPENAI_API_KEY": "personal"})
    model = resolve_model("openai:gpt-4o", config, {"WORK_OPENAI_KEY": "work"})
    assert model.endpoint.headers["Authorization"] == "Bearer work"  # type: ignore[attr-defined]


def test_command_line_spec_beats_config_default() -> None:
    config = ModelConfig(default="ollama:llama3.2")
    assert resolve_model("lmstudio:x", config, {}).name == "lmstudio:x"
    assert resolve_model(None, config, {}).name == "ollama:llama3.2"


def test_bare_names_of_hosted_models_are_inferred() -> None:
    claude = resolve_model("claude-sonnet-4-5", CONFIG, {"ANTHROPIC_API_KEY": "k"})
    assert isinstance(claude, AnthropicModel)
    gpt = resolve_model("gpt-4o-mini", CONFIG, {"OPENAI_API_KEY": "k"})
    assert isinstance(gpt, OpenAIChatModel) and gpt.context_window == 128_000


def test_unknown_names_say_what_to_write() -> None:
    with pytest.raises(
        ModelNotConfigured, match=r"(?s)unknown model provider 'qwen3'.*ollama:qwen3:8b"
    ):
        resolve_model("qwen3:8b", CONFIG, {})
    with pytest.raises(ModelNotConfigured, match=r"PROVIDER:MODEL .*ollama:mystery"):
        resolve_model("mystery", CONFIG, {})
    with pytest.raises(ModelNotConfigured, match="no model"):
        resolve_model("ollama:", CONFIG, {})


def test_context_windows() -> None:
    assert context_window_for("gpt-4.1-nano") == 1_047_576
    assert context_window_for("gpt-4o-2024-08-06") == 128_000
    assert context_window_for("o3-mini") == 200_000
    assert context_window_for("o4-mini") == 200_000
    assert context_window_for("claude-3-5-haiku-latest") == 200_000
    assert context_window_for("deepseek-reasoner") == 128_000
    assert context_window_for("qwen3:8b") == 32_768
    assert context_window_for("qwen/qwen3-coder") == 262_144
    assert context_window_for("something-new") == DEFAULT_CONTEXT_WINDOW
    assert context_window_for("something-new", local=True) == DEFAULT_LOCAL_CONTEXT_WINDOW
    assert context_window_for("gpt-4o", override=50_000) == 50_000
    config = ModelConfig(context_window=16_384)
    assert resolve_model("ollama:qwen3", config, {}).context_window == 16_384


def test_register_provider_hook() -> None:
    seen: list[ModelRequest] = []

    def factory(request: ModelRequest) -> Model:
        seen.append(request)
        return ScriptedModel(["hi"], name=request.spec)

    register_provider("Echo", factory)
    try:
        model = resolve_model("echo:anything:at-all", CONFIG, {"X": "1"})
    finally:
        del MODEL_FACTORIES["echo"]
    assert model.name == "echo:anything:at-all"
    assert seen[0].provider == "echo" and seen[0].model == "anything:at-all"
    assert seen[0].environ == {"X": "1"}


def test_resolved_model_talks_to_a_server() -> None:
    with OpenAIServer(["Served."]) as server:
        model = resolve_model("llamacpp:test", ModelConfig(base_url=server.base_url), {})
        response = asyncio.run(model.request([ChatMessage.user("hi")]))
    assert response.message.content == "Served."
    assert server.requests[0].body["model"] == "test"
