"""Whether a shell command may run as is, needs the user's approval, or is refused.

The policy comes from ``[agent]`` config, ``shell_approval``:

- ``never``: every command is refused.
- ``ask``: every command is put to the user (``ToolContext.approve``).
- ``allowlist``: a command runs without asking when every simple command in
  it (split at ``|``, ``&&``, ``||``, ``;``, ``&``, newlines and parentheses)
  starts with an entry of ``shell_allow`` — an entry is a program (``git``) or
  a program with leading arguments (``git status``) — and it writes no file
  through a redirection (``>``, ``>>``; ``2>&1`` and ``> /dev/null`` are fine),
  uses no command or process substitution (``$(…)``, backticks, ``<(…)``),
  and sets no environment variables in front of a program (``PAGER=… git log``
  runs the pager). ``cd`` is always allowed: on its own it changes nothing.
  Anything else is put to the user.

In every mode, a command the threat scanner (``kenning.safety.threats``,
script scope) finds destructive, exfiltrating, persisting or running remote
code needs approval, and the user is told why. Parsing errs towards asking:
text that merely looks like an operator (``grep ';' f``) splits the command,
which can only add programs to check.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from kenning.safety.threats import describe, scan

DANGEROUS = frozenset({"destructive", "exfiltration", "persistence", "remote_code"})
ALWAYS_ALLOWED = frozenset({"cd"})
_OPERATOR_CHARS = frozenset(";&|()\n")
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_SAFE_TARGET = re.compile(r"^(?:/dev/null|-|\d+)$")


@dataclass(frozen=True)
class Decision:
    action: Literal["run", "ask", "refuse"]
    reason: str  # why it must be asked or is refused; empty for "run"


def decide(command: str, mode: str, allow: Sequence[str]) -> Decision:
    if not command.strip():
        return Decision("refuse", "the command is empty")
    if mode == "never":
        return Decision("refuse", 'shell commands are turned off (agent.shell_approval = "never")')
    danger = dangers(command)
    if danger:
        return Decision("ask", f"this command looks dangerous: {danger}")
    if mode == "allowlist":
        why = not_allowed(command, allow)
        return Decision("ask", why) if why else Decision("run", "")
    return Decision("ask", 'every command needs approval (agent.shell_approval = "ask")')


def dangers(command: str) -> str:
    """The threat scanner's reasons, for the categories that make running a command risky."""
    findings = [f for f in scan(command, "script") if f.category in DANGEROUS]
    return describe(findings) if findings else ""


def not_allowed(command: str, allow: Sequence[str]) -> str:
    """Why ``command`` is not covered by the allow-list, or "" if it is."""
    substitution = _substitution(command)
    if substitution:
        return substitution
    try:
        tokens = _tokens(command)
    except ValueError as exc:
        return f"the command cannot be parsed ({exc})"
    entries = [entry.split() for entry in allow if entry.strip()]
    problems: list[str] = []
    segment: list[str] = []
    for i, token in enumerate(tokens):
        if _is_operator(token):
            if "<" in token or ">" in token:
                target = tokens[i + 1] if i + 1 < len(tokens) else ""
                writes = ">" in token and not _SAFE_TARGET.match(target)
                if writes:
                    problems.append(f"it redirects output into a file ({target or '?'})")
                continue
            problems.extend(_check_segment(segment, entries))
            segment = []
        else:
            segment.append(token)
    problems.extend(_check_segment(segment, entries))
    unique = list(dict.fromkeys(problems))
    return "; ".join(unique)


def _check_segment(words: list[str], entries: list[list[str]]) -> list[str]:
    if not words:
        return []
    if _ASSIGNMENT.match(words[0]):
        return [f"it sets environment variables for a program ({words[0].split('=')[0]}=…)"]
    program = words[0]
    if program in ALWAYS_ALLOWED:
        return []
    if any(words[: len(entry)] == entry for entry in entries):
        return []
    return [f"{program!r} is not in agent.shell_allow"]


def _is_operator(token: str) -> bool:
    return bool(token) and all(c in _OPERATOR_CHARS or c in "<>" for c in token)


def _tokens(command: str) -> list[str]:
    lexer = shlex.shlex(command, posix=True, punctuation_chars=";&|()<>\n")
    lexer.whitespace = " \t\r"  # a newline separates commands, as in the shell
    lexer.commenters = ""  # shlex would treat "a#b" as a comment; bash does not
    lexer.whitespace_split = True
    return list(lexer)


def _substitution(command: str) -> str:
    """A reason if the command substitutes the output of another command, else ""."""
    single = double = escaped = False
    for i, ch in enumerate(command):
        nxt = command[i + 1 : i + 2]
        if escaped:
            escaped = False
            continue
        if ch == "\\" and not single:
            escaped = True
        elif ch == "'" and not double:
            single = not single
        elif ch == '"' and not single:
            double = not double
        elif not single and (ch == "`" or (ch == "$" and nxt == "(")):
            return "it uses command substitution ($(…) or backticks)"
        elif not single and not double and ch in "<>" and nxt == "(":
            return "it uses process substitution (<(…) or >(…))"
    return ""
