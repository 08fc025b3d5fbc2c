"""Whether a Python cell may run as is, needs the user's approval, or is refused.

The policy is ``agent.python_approval``, with the choices and meaning of
``shell_approval`` (``kenning.tools.shell_policy``):

- ``never``: every cell is refused.
- ``ask``: every cell is put to the user.
- ``allowlist``: a cell runs without asking when every module it imports
  (its top-level package) is in ``agent.python_allow``, it opens no file for
  writing, and it calls none of ``exec``, ``eval``, ``compile``,
  ``__import__``, ``breakpoint``; anything else is put to the user.

In every mode a cell the threat scanner finds dangerous (script scope) needs
approval, and the user is told why. Like the shell allow-list this is a
gate against accidents, not a sandbox: a cell runs with the user's rights.
Code that does not parse is passed through (it fails in the kernel with a
SyntaxError the model can read, and runs nothing).
"""

from __future__ import annotations

import ast
from collections.abc import Sequence

from kenning.tools.shell_policy import Decision, dangers

__all__ = ["Decision", "decide", "not_allowed"]

DYNAMIC = frozenset({"exec", "eval", "compile", "__import__", "breakpoint"})
READ_MODES = frozenset({"r", "rb", "rt", "br", "tr"})


def decide(code: str, mode: str, allow: Sequence[str]) -> Decision:
    if not code.strip():
        return Decision("refuse", "the cell is empty")
    if mode == "never":
        return Decision("refuse", 'Python cells are turned off (agent.python_approval = "never")')
    danger = dangers(code)
    if danger:
        return Decision("ask", f"this code looks dangerous: {danger}")
    if mode == "allowlist":
        why = not_allowed(code, allow)
        return Decision("ask", why) if why else Decision("run", "")
    return Decision("ask", 'every cell needs approval (agent.python_approval = "ask")')


def not_allowed(code: str, allow: Sequence[str]) -> str:
    """Why ``code`` is not covered by the allow-list, or "" if it is."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return ""
    allowed = {entry.strip() for entry in allow if entry.strip()}
    problems: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            roots = [alias.name.split(".")[0] for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            roots = [(node.module or "").split(".")[0]] if node.level == 0 else ["(relative)"]
        else:
            roots = []
        problems += [
            f"it imports {root!r}, not in agent.python_allow"
            for root in roots
            if root not in allowed
        ]
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            name = node.func.id
            if name in DYNAMIC:
                problems.append(f"it calls {name}()")
            elif name == "open" and not _reads_only(node):
                problems.append("it opens a file for writing")
    return "; ".join(dict.fromkeys(problems))


def _reads_only(call: ast.Call) -> bool:
    mode: ast.expr | None = call.args[1] if len(call.args) > 1 else None
    for keyword in call.keywords:
        if keyword.arg == "mode":
            mode = keyword.value
    if mode is None:
        return True
    return isinstance(mode, ast.Constant) and mode.value in READ_MODES
