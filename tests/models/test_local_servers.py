"""Local model servers: a stopped one is reported at once with the command that
starts it, and the window a server really runs a model with is the one Kenning
plans with (a stock Ollama runs 4,096 tokens and cuts longer prompts silently)."""

from __future__ import annotations

import asyncio
import socket

import httpx

from kenning.config import ModelConfig
from kenning.models import ChatMessage
from kenning.models.http import classify_transport
from kenning.models.registry import resolve_model
from kenning.testing.wire import OpenAIServer

MESSAGES = [ChatMessage.user("hello")]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_a_stopped_ollama_is_reported_in_under_two_seconds_with_how_to_start_it() -> None:
    port = _free_port()
    # The default retry policy: what `kenning chat --model ollama:qwen3` gets.
    model = resolve_model("ollama:qwen3", ModelConfig(), {"OLLAMA_HOST": f"127.0.0.1:{port}"})
    try:
        asyncio.run(model.request(MESSAGES))
    except Exception as exc:
        error = exc
    # Not a duration (this machine's speed is no test's business): the error is not
    # transient, so the retry policy gives up at once instead of backing off ~12 s.
    text = str(error)
    assert getattr(error, "kind", "") == "unreachable"
    assert getattr(error, "transient", True) is False
    assert "`ollama serve`" in text
    assert "--model PROVIDER:MODEL" in text and "kenning setup" in text


def test_a_refused_connection_off_this_machine_is_still_retried() -> None:
    request = httpx.Request("POST", "http://10.1.2.3:8000/v1/chat/completions")
    exc = httpx.ConnectError("refused", request=request)
    error = classify_transport(exc, provider="vllm", url="http://10.1.2.3:8000/v1")
    assert error.kind == "connection" and error.transient


def _ollama(parameters: str = "", loaded: int = 0) -> OpenAIServer:
    running = [{"name": "qwen3:latest", "context_length": loaded}] if loaded else []
    return OpenAIServer(
        info={
            "/api/show": {"model_info": {"qwen3.context_length": 40960}, "parameters": parameters},
            "/api/ps": {"models": running},
        }
    )


def test_a_stock_ollama_window_is_its_default_num_ctx_and_says_how_to_raise_it() -> None:
    with _ollama() as server:
        model = resolve_model("ollama:qwen3", ModelConfig(), {"OLLAMA_HOST": server.origin})
    assert model.context_window == 4096
    note = model.window_note  # type: ignore[attr-defined]
    assert "4,096-token window" in note and "OLLAMA_CONTEXT_LENGTH=32768 ollama serve" in note
    assert [p.path for p in server.probes] == ["/api/show", "/api/ps"]
    assert server.probes[0].body == {"model": "qwen3"}


def test_ollama_num_ctx_from_the_modelfile_or_the_loaded_model_is_used() -> None:
    with _ollama(parameters="temperature 0.6\nnum_ctx 32768\n") as server:
        model = resolve_model("ollama:qwen3", ModelConfig(), {"OLLAMA_HOST": server.origin})
    assert model.context_window == 32768 and model.window_note == ""  # type: ignore[attr-defined]
    with _ollama(loaded=65536) as server:
        model = resolve_model("ollama:qwen3", ModelConfig(), {"OLLAMA_HOST": server.origin})
    assert model.context_window == 40960  # never above the model's own maximum


def test_vllm_max_model_len_is_the_window() -> None:
    listed = {"object": "list", "data": [{"id": "m", "max_model_len": 8192}]}
    with OpenAIServer(info={"/v1/models": listed}) as server:
        model = resolve_model("vllm:m", ModelConfig(base_url=server.base_url), {})
    assert model.context_window == 8192


def test_a_configured_window_is_not_asked_for() -> None:
    with _ollama() as server:
        config = ModelConfig(context_window=12_000)
        model = resolve_model("ollama:qwen3", config, {"OLLAMA_HOST": server.origin})
    assert model.context_window == 12_000 and server.probes == []
