"""Local HTTP servers that speak the OpenAI and Anthropic wire formats.

Adapters are tested over real sockets against these, never against the
network. Each server takes a script (replies in ``ScriptedModel``'s
vocabulary, or failure behaviours), records what it received, and can run
in-process (a context manager) or as a separate process::

    python -m kenning.testing.wire openai --port 0 --script conversation.json
"""

from kenning.testing.wire.anthropic_server import AnthropicServer
from kenning.testing.wire.openai_server import OVERFLOW_BODIES, OpenAIServer
from kenning.testing.wire.script import (
    AuthError,
    ContextOverflow,
    Delay,
    RateLimited,
    RawResponse,
    RawStream,
    ScriptError,
    ScriptItem,
    ServerError,
    Truncated,
    load_script,
)
from kenning.testing.wire.server import RecordedRequest, WireServer

SERVERS: dict[str, type[WireServer]] = {"openai": OpenAIServer, "anthropic": AnthropicServer}

__all__ = [
    "OVERFLOW_BODIES",
    "SERVERS",
    "AnthropicServer",
    "AuthError",
    "ContextOverflow",
    "Delay",
    "OpenAIServer",
    "RateLimited",
    "RawResponse",
    "RawStream",
    "RecordedRequest",
    "ScriptError",
    "ScriptItem",
    "ServerError",
    "Truncated",
    "WireServer",
    "load_script",
]
