"""What models this machine can use: local servers on their ports, keys in the environment.

``kenning setup`` shows these as choices. A local server is found by asking
``GET /v1/models`` on its default port on loopback (Ollama, llama.cpp, LM
Studio, vLLM) or at a URL the person names; a hosted provider is offered
when its key variable is set (the key itself is never read into config).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from kenning.models.local import LOCAL_SERVERS, list_models, server_for

# A sensible first model per hosted provider, for people who have only a key.
HOSTED_DEFAULTS: dict[str, str] = {
    "OPENAI_API_KEY": "openai:gpt-4.1-mini",
    "ANTHROPIC_API_KEY": "anthropic:claude-sonnet-4-5",
    "OPENROUTER_API_KEY": "openrouter:anthropic/claude-sonnet-4.5",
    "DEEPSEEK_API_KEY": "deepseek:deepseek-chat",
}


@dataclass(frozen=True)
class Candidate:
    """One model that can be written as ``[model] default`` (with ``base_url`` when needed)."""

    spec: str
    where: str  # for the list: "Ollama at http://127.0.0.1:11434/v1", "OPENAI_API_KEY is set"
    base_url: str = ""


@dataclass(frozen=True)
class Server:
    label: str
    base_url: str
    models: tuple[str, ...]


def find_servers(urls: Iterable[str] = ()) -> list[Server]:
    """Servers that answer at ``urls``, or (none given) at the known local ports."""
    wanted = list(urls) or [server.base_url("127.0.0.1") for server in LOCAL_SERVERS]
    found = []
    for url in wanted:
        base = url.rstrip("/")
        models = list_models(base)
        if models is None:
            continue
        known = server_for("", base)
        found.append(Server(known.label if known else "server", base, tuple(models)))
    return found


def candidates(servers: Iterable[Server], environ: Mapping[str, str]) -> list[Candidate]:
    """Every choice, local servers first (they need no key and cost nothing)."""
    out = []
    for server in servers:
        known = server_for("", server.base_url)
        default_url = known is not None and server.base_url in {
            known.base_url("127.0.0.1"),
            known.base_url("localhost"),
        }
        for model in server.models:
            where = f"{server.label} at {server.base_url}"
            if known is not None and default_url:
                out.append(Candidate(f"{known.provider}:{model}", where))
            else:
                out.append(Candidate(model, where, base_url=server.base_url))
    for variable, spec in HOSTED_DEFAULTS.items():
        if environ.get(variable):
            out.append(Candidate(spec, f"{variable} is set"))
    return out
