"""The rule table: what each rule catches, where it applies, which views of a text it reads.

:data:`RULES` is every row, in the order findings are listed (prompt injection first, the
most useful reason to read). A :class:`Pattern` is one regex; a :class:`ClauseRule` fires when
all the parts of one of its alternatives meet in one clause. Each row has a stable id, a
category, the scopes it applies to, the reason shown to the user and the views of the text it
reads (:mod:`kenning.safety.canonical`). The rows live in modules by the kind of text they
match: :mod:`.injection` (the canonical phrases addressed to the model), :mod:`.intent`
(English paraphrases of override, role hijack, concealment, disabling safety,
self-propagation, phishing), :mod:`.lexicon` (override, role hijack, self-propagation and
exfiltration in many languages), and, in many languages too, :mod:`.authority` (an entry that
outranks the user, demotes them, fakes compliance or speaks in their name),
:mod:`.concealment` (hiding from the user, actions kept out of the reports, prepared answers),
:mod:`.approvals` (asking switched off, check-skipping flags made a habit, scanners removed),
:mod:`.phishing` (asking for or collecting the user's secrets) and :mod:`.poisoning` (a
payee's "new" account, a host declared trusted, a changed host key, secrets sent to a moved
host), with the shared pieces of :mod:`.grammar` (negations, where orders stand);
:mod:`.structure` (fake system messages, turns, tool calls, comments, templated links),
:mod:`.indirect` (documents that address the model, claim a vendor's authority, waive
approvals, harvest secrets or hijack tools),
:mod:`.payloads` and :mod:`.commands` (commands that leak, persist, destroy or run remote
code), :mod:`.leaks` (secrets shown in replies, copied out, read into URLs; money
redirected), :mod:`.scripts` (the same payloads as Python or Node code, for skill scripts),
:mod:`.code_blocks` (code planted in the agent's output, collected and sent or fetched and run
across the lines of a block),
:mod:`.credentials` and :mod:`.secrets` (secrets pasted as text); :mod:`.schema` defines a row
and the scopes.

How a row is written: a one-line ``# WHY:`` comment above it says why the pattern exists and
what ordinary text it deliberately lets through; inside the ``re.VERBOSE`` regex, a comment
before each alternative gives an example of what it catches. The tests hold at least one attack
per pattern and a list of ordinary notes that must stay clean in every scope.
"""

from __future__ import annotations

import dataclasses
from typing import Final

from kenning.safety.patterns import (
    approvals,
    authority,
    code_blocks,
    commands,
    concealment,
    credentials,
    flows,
    guards,
    indirect,
    injection,
    intent,
    leaks,
    lexicon,
    payloads,
    phishing,
    poisoning,
    scripts,
    secrets,
    structure,
    supply,
)
from kenning.safety.patterns.schema import (
    ALL,
    BASE,
    COMMAND,
    MEMORY,
    NATIVE,
    SCRIPT,
    Category,
    ClauseRule,
    Pattern,
    Rule,
    Scope,
)

__all__ = [
    "ALL",
    "MEMORY",
    "PATTERNS",
    "RULES",
    "SCRIPT",
    "Category",
    "ClauseRule",
    "Pattern",
    "Rule",
    "Scope",
]


def _read(rows: tuple[Pattern, ...], views: frozenset[str]) -> tuple[Pattern, ...]:
    return tuple(dataclasses.replace(row, views=views) for row in rows)  # type: ignore[arg-type]


# The rows of the first table were written for one view; they say here which they read.
# Overrides said as rules against them ("Never ignore your previous instructions") pass.
_NEGATABLE: Final = frozenset(
    {
        "ignore_previous_instructions",
        "disregard_rules",
        "forget_instructions",
        "ignore_previous_instructions_intl",
    }
)


def _injection_row(row: Pattern) -> Pattern:
    if row.pattern_id in _NEGATABLE:
        row = dataclasses.replace(row, negatable=True)
    if row.pattern_id.endswith("_intl"):
        return dataclasses.replace(row, views=NATIVE)
    if row.pattern_id == "fake_role_marker":  # markers quoted in inline code are documentation
        return dataclasses.replace(row, views=BASE, skip_inline_code=True)
    return row


_INJECTION: Final = tuple(_injection_row(row) for row in injection.PATTERNS)

# The first table's rows come first, so a text it catches is reported by the same rule as
# before; the rows added for the layered screen (issue 14) follow.
PATTERNS: Final[tuple[Pattern, ...]] = (
    *_INJECTION,
    *_read(payloads.PATTERNS, COMMAND),
    *_read(scripts.PATTERNS, COMMAND),
    *_read(credentials.PATTERNS, BASE),
    *intent.PATTERNS,
    *approvals.PATTERNS,
    *structure.PATTERNS,
    *indirect.PATTERNS,
    *commands.PATTERNS,
    *flows.PATTERNS,
    *code_blocks.PATTERNS,
    *supply.PATTERNS,
    *guards.PATTERNS,
    *leaks.PATTERNS,
    *secrets.PATTERNS,
    *poisoning.PATTERNS,
)

RULES: Final[tuple[Rule, ...]] = (
    *PATTERNS,
    *intent.CLAUSE_RULES,
    *lexicon.CLAUSE_RULES,
    *phishing.CLAUSE_RULES,
    *concealment.CLAUSE_RULES,
    *approvals.CLAUSE_RULES,
    *authority.CLAUSE_RULES,
    *poisoning.CLAUSE_RULES,
)
