"""Secrets removed from text shown to a model: ``[REDACTED secret]`` where a key stood.

The archive keeps every transcript verbatim (it is the user's record), but a search result
handed back to the model would put an old pasted key into a new prompt. :func:`redact_secrets`
replaces the span of every secret rule's match (:mod:`.patterns.credentials`,
:mod:`.patterns.secrets`) in the text; the rest stays as it was. A password found by its
introduction ("password is X") loses only X.
"""

from __future__ import annotations

from typing import Final

from kenning.safety.patterns import PATTERNS

PLACEHOLDER: Final = "[REDACTED secret]"
_SECRET_ROWS: Final = tuple(p for p in PATTERNS if p.category == "secret")


def redact_secrets(text: str) -> str:
    """``text`` with every secret span replaced by :data:`PLACEHOLDER`."""
    spans: list[tuple[int, int]] = []
    for row in _SECRET_ROWS:
        for m in row.regex.finditer(text):
            value = m.groupdict().get("value")
            start, end = (m.start("value"), m.end("value")) if value else (m.start(), m.end())
            if row.pattern_id in ("password_assignment", "credentials_in_url"):
                start, end = _value_span(text, start, end)
            spans.append((start, end))
    if not spans:
        return text
    out, at = [], 0
    for start, end in sorted(spans):
        if end <= at:
            continue
        out.append(text[at : max(at, start)])
        out.append(PLACEHOLDER)
        at = end
    out.append(text[at:])
    return "".join(out)


def _value_span(text: str, start: int, end: int) -> tuple[int, int]:
    """For "name = value" and "user:pass@" matches, the part after = : or the user name."""
    matched = text[start:end]
    for sep in ("=", ":"):
        k = matched.rfind(sep) if sep == ":" else matched.find(sep)
        if k != -1 and k < len(matched) - 1:
            return start + k + 1, end
    return start, end
