"""Tools the model can call: typed functions, a registry with toolsets, parallel-safe batches.

``default_registry(home)`` builds the built-ins; ``ToolRegistry.run_batch``
runs one model response's tool calls and returns the ``tool`` messages.
"""

from kenning.tools.base import (
    Access,
    ApprovalRequest,
    Approver,
    Tool,
    ToolContext,
    ToolError,
    ToolResult,
    TurnState,
    tool,
)
from kenning.tools.registry import ToolOutcome, ToolRegistry, default_registry
from kenning.tools.spill import SpillPolicy

__all__ = [
    "Access",
    "ApprovalRequest",
    "Approver",
    "SpillPolicy",
    "Tool",
    "ToolContext",
    "ToolError",
    "ToolOutcome",
    "ToolRegistry",
    "ToolResult",
    "TurnState",
    "default_registry",
    "tool",
]
