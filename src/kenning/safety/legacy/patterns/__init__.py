"""The threat pattern table: what each pattern catches, where it applies, and why.

:data:`PATTERNS` is every row, in the order findings are listed (prompt injection first, the
most useful reason to read). Each :class:`Pattern` has a stable id, a category, the scopes it
applies to, the reason shown to the user and a compiled regex, which
:func:`kenning.safety.legacy.engine.scan` searches in normalised text. The rows live in four
modules by the kind of text they match: :mod:`.injection` (phrases addressed to the model),
:mod:`.payloads` (commands and markup that leak data, persist, destroy or run remote code),
:mod:`.scripts` (the same payloads written as Python or Node code, for skill scripts) and
:mod:`.credentials` (secrets pasted as text); :mod:`.schema` defines a row and the scopes.

How a row is written: a one-line ``# WHY:`` comment above it says why the pattern exists and
what ordinary text it deliberately lets through; inside the ``re.VERBOSE`` regex, a comment
before each alternative gives an example of what it catches. The tests hold at least one attack
per pattern and a list of ordinary notes that must stay clean in every scope.
"""

from __future__ import annotations

from typing import Final

from kenning.safety.legacy.patterns import credentials, injection, payloads, scripts
from kenning.safety.legacy.patterns.schema import ALL, MEMORY, SCRIPT, Category, Pattern, Scope

__all__ = ["ALL", "MEMORY", "PATTERNS", "SCRIPT", "Category", "Pattern", "Scope"]

PATTERNS: Final[tuple[Pattern, ...]] = (
    *injection.PATTERNS,
    *payloads.PATTERNS,
    *scripts.PATTERNS,
    *credentials.PATTERNS,
)
