"""Language models behind one small async interface, and their adapters.

The values and errors are imported eagerly; the adapters and the registry
(which pull in httpx, ~0.1 s) load on first use, so code that only needs the
types stays quick to import.
"""

from typing import TYPE_CHECKING, Any

from kenning.models.errors import ModelError, ModelNotConfigured
from kenning.models.types import (
    ChatMessage,
    Model,
    ModelResponse,
    ModelSettings,
    ResponseDone,
    StreamEvent,
    TextDelta,
    ToolArgumentsError,
    ToolCall,
    ToolCallDelta,
    ToolSpec,
    Usage,
)

if TYPE_CHECKING:
    from kenning.models.anthropic import AnthropicModel
    from kenning.models.openai import OpenAIChatModel
    from kenning.models.registry import register_provider, resolve_model
    from kenning.models.retry import RetryPolicy

_LAZY = {
    "AnthropicModel": "kenning.models.anthropic",
    "OpenAIChatModel": "kenning.models.openai",
    "RetryPolicy": "kenning.models.retry",
    "register_provider": "kenning.models.registry",
    "resolve_model": "kenning.models.registry",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)


__all__ = [
    "AnthropicModel",
    "ChatMessage",
    "Model",
    "ModelError",
    "ModelNotConfigured",
    "ModelResponse",
    "ModelSettings",
    "OpenAIChatModel",
    "ResponseDone",
    "RetryPolicy",
    "StreamEvent",
    "TextDelta",
    "ToolArgumentsError",
    "ToolCall",
    "ToolCallDelta",
    "ToolSpec",
    "Usage",
    "register_provider",
    "resolve_model",
]
