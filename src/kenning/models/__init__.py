"""Language models behind one small async interface, and their adapters."""

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

__all__ = [
    "ChatMessage",
    "Model",
    "ModelError",
    "ModelNotConfigured",
    "ModelResponse",
    "ModelSettings",
    "ResponseDone",
    "StreamEvent",
    "TextDelta",
    "ToolArgumentsError",
    "ToolCall",
    "ToolCallDelta",
    "ToolSpec",
    "Usage",
]
