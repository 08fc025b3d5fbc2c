"""The threat scanner as it was before the layered screen (issue 14), frozen: the baseline.

A verbatim copy of ``kenning.safety`` at commit 8d0b51a (``threats``, renamed ``engine``,
``unicode`` and the ``patterns`` table), with only its imports pointed here. No writer uses
it; ``kenning bench safety`` runs it beside the current screen in the same process, so every
number the bench prints for the new screen has a same-run baseline. Do not edit it: a fix here
would move the baseline. :func:`scan` adapts its findings to the current ``Finding``.
"""

from __future__ import annotations

from kenning.safety import threats
from kenning.safety.legacy import engine as _legacy

__all__ = ["scan"]


def scan(text: str, scope: threats.Scope = "memory") -> list[threats.Finding]:
    """The baseline's findings for ``text``, as the current API's :class:`Finding` objects."""
    return [
        threats.Finding(f.pattern_id, f.category, f.reason, f.excerpt)
        for f in _legacy.scan(text, scope)
    ]
