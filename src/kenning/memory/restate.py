"""Does a later statement restate an earlier one with another value? Words only, no model.

"The staging DB is on port 5432" and, later, "staging DB moved to port 6543"
keep the same subject and attribute and change the value: the later one
*restates* the earlier. Used where no embedding is at hand: ``memory add``
answers with the entries an add may update (``may_update``), and dreaming
never promotes a candidate that a newer statement restates.

Why these thresholds and not supersession's (``search.supersede``): search
compares two messages only after their own vectors passed a cosine of .86,
so its word test may be loose (Jaccard .3); here the words are the only test.
"""

from __future__ import annotations

from kenning.storage.text import query_terms

# At least 3 shared words, and token Jaccard >= .5 or >= .7 of the older
# statement's words kept. Chosen on Letta's update set, dev worlds (facts as
# entries, corrections as adds): .66 of corrections caught, .42 % of other
# facts of the same world flagged; held-out .69 / .48 %.
JACCARD = 0.5
KEPT = 0.7
SHARED = 3


def restates_words(older: frozenset[str], newer: frozenset[str]) -> bool:
    """Do these word sets (``text.query_terms``) say the same subject with another value?"""
    shared = len(older & newer)
    if shared < SHARED or older == newer:
        return False  # two words in common ("deploy … make") is a pattern, not a subject
    return shared >= JACCARD * len(older | newer) or shared >= KEPT * len(older)


def restates(older: str, newer: str) -> bool:
    """``restates_words`` of two texts."""
    return restates_words(frozenset(query_terms(older)), frozenset(query_terms(newer)))


def contradicts(older: frozenset[str], newer: frozenset[str]) -> bool:
    """``restates_words``, and the value changed: each has a word the other lacks
    ("…port 5432" -> "…moved to port 6543"). A later echo that only drops words
    ("yes, port 5432") or a question is not a correction."""
    return restates_words(older, newer) and bool(older - newer) and bool(newer - older)
