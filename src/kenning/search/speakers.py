"""Named speakers: a query that names someone who speaks in the archive asks what they said.

In a conversation with named speakers (an imported group chat, a meeting
transcript, LoCoMo's two friends) "What video games does Nate play?" is
answered by Nate's own messages; the other person's replies share the topic
("I love how video games spark your imagination") and, by cosine, often
outrank the answer. So when the query names one or more of the candidates'
speakers, every message by someone else is scaled by ``RankParams.
other_speaker_factor`` before the neighbour and session lifts, which then
carry the named speaker's messages, not the rest. Role-only messages (no
speaker, or a speaker that is a role word such as "user") name nobody, so an
ordinary user/assistant archive is unchanged.

A name matches as a whole word, case-insensitively ("nate's" too), by any of
its parts of 3+ letters that is not a common word ("John" of "John Smith";
"Will" only when the query writes it capitalised); a name in a script written
without spaces (Chinese) matches as a substring of 2+ characters.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

import numpy as np

from kenning.storage.text import STOPWORDS

# Speakers that are roles, not people: never "named" by a query.
_ROLES = frozenset(
    {"user", "assistant", "system", "tool", "human", "model", "agent", "bot", "ai", "me", "you"}
)
_HAN = re.compile("[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_PART = re.compile(r"[^\W\d_]{3,}")


def named(query: str, speakers: Iterable[str | None]) -> frozenset[str]:
    """The ``speakers`` that ``query`` names."""
    lowered = query.lower()
    out = set()
    for speaker in set(speakers):
        if speaker and speaker.strip().lower() not in _ROLES and _names(speaker, query, lowered):
            out.add(speaker)
    return frozenset(out)


def _names(speaker: str, query: str, lowered: str) -> bool:
    name = speaker.strip()
    if _HAN.search(name):
        return len(name) >= 2 and name in query
    for part in _PART.findall(name):
        common = part.lower() in STOPWORDS or part.lower() in _ROLES
        text, word = (query, part) if common else (lowered, part.lower())
        if re.search(rf"(?<![^\W_]){re.escape(word)}(?![^\W_])", text):
            return True
    return False


def factors(query: str, said_by: Sequence[str | None], other: float) -> np.ndarray | None:
    """Per row, 1 for a message by a speaker the query names and ``other`` for the
    rest; None when the query names none of them (or the factor is off)."""
    if other >= 1.0 or not said_by:
        return None
    who = named(query, said_by)
    if not who:
        return None
    return np.fromiter((1.0 if s in who else other for s in said_by), np.float64, len(said_by))
