"""The Python workspace: a persistent kernel per session, its snapshot and its host API.

``python_tool(Workspaces(home))`` is the tool; ``kernel.Kernel`` the process;
``kernel_main`` the code that runs inside it; ``host`` answers the kernel's
``kenning.*`` requests; ``snapshot`` reads what a snapshot holds.
"""

from kenning.workspace.kernel import CellResult, Kernel, KernelError, Limits, Variable
from kenning.workspace.tool import Workspaces, python_tool

__all__ = ["CellResult", "Kernel", "KernelError", "Limits", "Variable", "Workspaces", "python_tool"]
