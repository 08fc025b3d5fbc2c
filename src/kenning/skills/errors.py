"""The one error every skills operation raises, written for the model and the user alike.

A ``SkillError`` always means *nothing was changed*: the library checks a change
completely (guards, validation, threat scan) before it writes anything, and
undoes a write that fails half-way. The message says what is wrong and what
the current state is; ``next_step`` says what to do about it.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field


class ErrorKind(enum.StrEnum):
    INVALID = "invalid"  # the request or the resulting skill breaks a rule
    BLOCKED = "blocked"  # the threat scan refused the content
    NOT_FOUND = "not_found"
    EXISTS = "exists"
    NO_MATCH = "no_match"  # patch: the old text is not there
    AMBIGUOUS = "ambiguous"  # patch: the old text is there more than once
    PROTECTED = "protected"  # an automated writer may not change this skill
    NOT_READ = "not_read"  # an automated writer has not read the current text
    STALE = "stale"  # a proposal's target changed since it was made
    IO = "io"  # the disk refused; everything was put back


@dataclass
class SkillError(Exception):
    """A refused skills operation. Nothing was written; the fields say why and what next."""

    kind: ErrorKind
    message: str
    next_step: str = ""
    problems: list[str] = field(default_factory=list)

    def __str__(self) -> str:
        return f"{self.message} {self.next_step}".strip()
