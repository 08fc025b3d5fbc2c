"""Model servers on this machine: where they listen, how to start them, what they run.

Four servers people run locally speak the OpenAI wire format, each on its
own default port: Ollama (11434), llama.cpp's ``llama-server`` (8080), LM
Studio (1234) and vLLM (8000). This module knows them well enough to

- say the exact command that starts one when nothing listens at its address
  (:func:`start_hint`, used by the error a refused connection becomes);
- ask one which models it serves (:func:`list_models`, for ``kenning setup``);
- ask one how large a context it runs a model with (:func:`served_window`):
  a local server often runs a model far below its native window (a stock
  Ollama at 4,096 tokens), and a prompt longer than the server's window is
  cut without a word, so Kenning must plan with the server's number.

Every probe is one short HTTP call with a small timeout; a server that does
not answer, or answers in another shape, yields None ("unknown"), never an
exception: probing is advice, the model request itself reports failures.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlparse

import httpx

PROBE_TIMEOUT_S = 1.5
# Ollama's window for a model whose Modelfile sets no num_ctx and a server
# started without OLLAMA_CONTEXT_LENGTH (Ollama 0.6 and later).
OLLAMA_DEFAULT_NUM_CTX = 4096


@dataclass(frozen=True)
class LocalServer:
    provider: str  # the model prefix: ollama:MODEL
    label: str
    port: int
    start: str  # the command that starts it; MODEL stands for the model

    def base_url(self, host: str = "localhost") -> str:
        return f"http://{host}:{self.port}/v1"


LOCAL_SERVERS: tuple[LocalServer, ...] = (
    LocalServer("ollama", "Ollama", 11434, "ollama serve"),
    LocalServer("llamacpp", "llama.cpp", 8080, "llama-server -m MODEL.gguf --port 8080"),
    LocalServer("lmstudio", "LM Studio", 1234, "lms server start"),
    LocalServer("vllm", "vLLM", 8000, "vllm serve MODEL"),
)
_BY_PROVIDER = {server.provider: server for server in LOCAL_SERVERS}
_BY_PORT = {server.port: server for server in LOCAL_SERVERS}


def is_loopback(url: str) -> bool:
    """Whether ``url`` points at this machine (localhost, 127.0.0.0/8, ::1, 0.0.0.0)."""
    host = (urlparse(url).hostname or "").lower()
    if host in {"localhost", "0.0.0.0"}:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def server_for(provider: str, url: str) -> LocalServer | None:
    """The known server behind ``provider`` or, failing that, behind ``url``'s port."""
    known = _BY_PROVIDER.get(provider)
    if known is not None:
        return known
    return _BY_PORT.get(urlparse(url).port or 0)


def start_hint(provider: str, url: str, model: str = "") -> str:
    """What to run when nothing listens at ``url``, and the way out: another model."""
    server = server_for(provider, url)
    if server is not None:
        command = server.start.replace("MODEL", model or "MODEL")
        start = f"start {server.label}: `{command}`"
    else:
        start = f"start the server that should listen at {url}"
    return (
        f"{start}; or choose another model: `kenning chat --model PROVIDER:MODEL`, "
        "or `kenning setup` to find what runs here and save it"
    )


def origin(base_url: str) -> str:
    """``http://host:port`` of a base URL (Ollama's native API lives beside /v1)."""
    parsed = urlparse(base_url)
    return f"{parsed.scheme or 'http'}://{parsed.netloc}"


def _get(client: httpx.Client, url: str) -> Any:
    response = client.get(url)
    return response.json() if response.status_code == 200 else None


def list_models(base_url: str, *, timeout_s: float = PROBE_TIMEOUT_S) -> list[str] | None:
    """The model ids ``GET {base_url}/models`` lists; None when nothing answers so."""
    try:
        with httpx.Client(timeout=timeout_s) as client:
            data = _get(client, f"{base_url.rstrip('/')}/models")
    except (httpx.HTTPError, ValueError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get("data"), list):
        return None
    return [str(m["id"]) for m in data["data"] if isinstance(m, dict) and m.get("id")]


@dataclass(frozen=True)
class ServedWindow:
    """The window a server runs a model with, and what it said about it."""

    tokens: int
    native: int = 0  # the model's own maximum, when the server says it (0: unknown)
    source: str = ""  # for messages: "Ollama's num_ctx", "vLLM's max_model_len"
    advice: str = ""  # how to give the model more, when the server runs it small


def served_window(
    provider: str, base_url: str, model: str, *, timeout_s: float = PROBE_TIMEOUT_S
) -> ServedWindow | None:
    """Ask the server at ``base_url`` how many tokens it gives ``model``; None if it won't say."""
    server = server_for(provider, base_url)
    try:
        with httpx.Client(timeout=timeout_s) as client:
            if server is not None and server.provider == "ollama":
                return _ollama_window(client, base_url, model)
            return _openai_window(client, base_url, model)
    except (httpx.HTTPError, ValueError):
        return None


def _openai_window(client: httpx.Client, base_url: str, model: str) -> ServedWindow | None:
    """vLLM lists ``max_model_len`` per model; llama.cpp's ``/props`` says ``n_ctx``
    (asked only of a server whose model list says it is llama.cpp)."""
    data = _get(client, f"{base_url.rstrip('/')}/models")
    llamacpp = False
    for entry in data.get("data", []) if isinstance(data, dict) else []:
        if not isinstance(entry, dict):
            continue
        llamacpp = llamacpp or entry.get("owned_by") == "llamacpp"
        if entry.get("id") == model:
            for key in ("max_model_len", "context_length", "loaded_context_length"):
                if isinstance(entry.get(key), int) and entry[key] > 0:
                    return ServedWindow(entry[key], source=f"the server's {key}")
    if not llamacpp:
        return None
    props = _get(client, f"{origin(base_url)}/props")
    if isinstance(props, dict):
        settings = props.get("default_generation_settings") or {}
        n_ctx = settings.get("n_ctx") if isinstance(settings, dict) else None
        if isinstance(n_ctx, int) and n_ctx > 0:
            return ServedWindow(
                n_ctx,
                source="llama.cpp's n_ctx",
                advice="restart llama-server with a larger --ctx-size (-c)",
            )
    return None


_NUM_CTX = re.compile(r"^\s*num_ctx\s+(\d+)\s*$", re.MULTILINE)


def _ollama_window(client: httpx.Client, base_url: str, model: str) -> ServedWindow | None:
    """Ollama: the model's native length from ``/api/show``, the window it runs from
    the Modelfile's ``num_ctx``, else from ``/api/ps`` if loaded, else its default.

    Ollama's OpenAI endpoint cannot set ``num_ctx`` per request, so the fix for a
    small window is on the server's side, and the advice says so.
    """
    host = origin(base_url)
    response = client.post(f"{host}/api/show", json={"model": model})
    if response.status_code != 200:
        return None
    shown = response.json()
    if not isinstance(shown, dict):
        return None
    info = shown.get("model_info") or {}
    native = next(
        (v for k, v in info.items() if k.endswith(".context_length") and isinstance(v, int)), 0
    )
    advice = (
        "restart Ollama with a larger window: `OLLAMA_CONTEXT_LENGTH=32768 ollama serve` "
        "(or set PARAMETER num_ctx in a Modelfile), or set [model] context_window"
    )
    found = _NUM_CTX.search(str(shown.get("parameters") or ""))
    if found:
        return ServedWindow(int(found.group(1)), native, "the Modelfile's num_ctx", advice)
    running = _get(client, f"{host}/api/ps")
    for entry in running.get("models", []) if isinstance(running, dict) else []:
        if isinstance(entry, dict) and entry.get("name") in (model, f"{model}:latest"):
            length = entry.get("context_length")
            if isinstance(length, int) and length > 0:
                return ServedWindow(length, native, "Ollama's loaded context_length", advice)
    return ServedWindow(OLLAMA_DEFAULT_NUM_CTX, native, "Ollama's default num_ctx", advice)
