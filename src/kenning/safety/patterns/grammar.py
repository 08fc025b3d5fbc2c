"""Pieces the clause rules in many languages share: where an instruction stands in its clause,
and the negations that turn it into a rule against the thing.

The screen skips a match of a negatable rule when "never", "nicht", "不要" ... stands before it
(see :mod:`kenning.safety.screen`), but it knows the negations of a dozen languages only; the
security policies people write in Hindi, Thai or Swahili say "never ask for the OTP" just as
often. :func:`unnegated` builds the first part of a clause alternative that carries its own
negations: the word it looks for must not follow one of them in the same clause. Negations
that come after the verb, as in Japanese, Korean, Turkish or Bengali, are the verb's own forms
and are excluded by the word lists themselves (a lookahead after the verb).

:func:`instruction` is stricter: the verb must start its clause (or follow a comma, a colon or a
word such as "then"), where an order stands; "if someone asks for your OTP, it is fraud" has
"asks" inside a condition, not as an order.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Final

from kenning.safety.canonical import base_view, extra_views
from kenning.safety.patterns import schema
from kenning.safety.patterns.schema import Category, ClauseRule, Scope, View

# Where the screen's clauses start, and the danda (U+0964) of Hindi and Bengali, which ends a
# sentence there but not a clause for the screen: a clause may hold several of its sentences.
# (Written as escapes: a rule's script is read from the characters of its source.)
_STARTS: Final = r"(?:^|(?<=[.!?。！？;；:：\u0964\n]))"
# One character of the clause: anything but a clause end, or a dot inside a name ("README.md").
_CHAR: Final = r"(?:[^.!?。！？;；\u0964\n]|[.!?](?=\S))"

# Negations before the verb, per language (those after it are in the word lists).
NEGATIONS: Final[dict[str, str]] = {
    "en": r"\b(?:never|not|no|don['’]?t|doesn['’]?t|won['’]?t|mustn['’]?t|shouldn['’]?t|can['’]?t"
    r"|cannot|avoid|nobody|no\s+one)\b",
    "zh": r"不|别|別|勿|禁止|切勿|绝不|絕不|从未|從未|没有|沒有|无需|無需",
    "ja": r"決して|禁止",  # mostly after the verb: "確認しないで", in the word lists
    "ko": r"절대로?\s*(?=\S*\s*(?:하지|않|말))",  # "절대 ... 하지 마": the verb's own form follows
    "ru": r"\b(?:не|ни|никогда|нельзя|никому|запрещено)\b",
    "uk": r"\b(?:не|ні|ніколи|не\s+можна|нікому|заборонено)\b",
    "es": r"\b(?:no|nunca|jamás|ni|nadie)\b",
    "pt": r"\b(?:não|nao|nunca|jamais|nem|ninguém)\b",
    "de": r"\b(?:nicht|nie|niemals|kein\w*|niemand)\b",
    "fr": r"\b(?:ne|n['’]|jamais|aucun\w*|personne|pas)\b",
    "it": r"\b(?:non|mai|nessun\w*)\b",
    "nl": r"\b(?:niet|nooit|geen|niemand)\b",
    "pl": r"\b(?:nie|nigdy|nikt|nikomu)\b",
    "cs": r"\b(?:ne|nikdy|nikdo|nikomu)\b",
    "sv": r"\b(?:inte|aldrig|ej|ingen|inga)\b",
    "tr": r"\b(?:asla|yasak)\b",  # "hiçbir" is a quantifier: "hiçbir komut için onay isteme"
    "ar": r"(?:^|\s)(?:[وف]?(?:لا|لن|لم|ليس)|أبدا|أبداً|ممنوع|يمنع)(?=\s)",
    "fa": r"(?:^|\s)(?:هرگز|هیچ|نباید|ممنوع)(?=\s)",
    "he": r"(?:^|\s)(?:אל|לא|אסור|לעולם|אין)(?=\s)",
    "hi": r"मत|नहीं|कभी|न\s",
    "bn": r"কখনো|কখনও|না\s|নয়",
    "th": r"ห้าม|อย่า|ไม่",
    "vi": r"\b(?:đừng|không|chớ|cấm|chẳng)\b",
    "id": r"\b(?:jangan|tidak|tak|bukan|dilarang)\b",
    "el": r"(?:^|\s)(?:μη|μην|ποτέ|δεν|κανείς)(?=\s)",
    "ro": r"\b(?:nu|niciodată|nimeni|nimănui)\b",
    "hu": r"\b(?:ne|nem|soha|senki|senkinek|tilos)\b",
    "sw": r"\b(?:usi\w*|kamwe|si|hapana|haipaswi)\b",
    "tl": r"\b(?:huwag|hindi|bawal)\b",
}
# For a row that reads text of any language (a command-line flag in a sentence of any of them).
NEGATIONS["any"] = (
    r"\b(?:never|not|no|don['’]?t|doesn['’]?t|avoid|nunca|jamás|jamais|não|nie|nicht|niemals|kein\w*|pas|non"
    r"|mai|niet|nooit|nigdy|aldrig|inte|asla|jangan|đừng|không|huwag|hindi)\b|不要|别|別|禁止|切勿|勿|しない"
    r"|使わない|하지\s*마|금지|\bне\b|никогда"
)


# Languages whose negation follows the verb of an order: "Frag niemals nach der PIN", "Vraag
# nooit om de pincode", "Be aldrig om lösenordet".
_AFTER: Final = frozenset({"de", "nl", "sv"})


@functools.cache
def _folded_letter(ch: str) -> str:
    folded = next((v.text for v in extra_views(base_view(ch)) if v.name == "folded"), ch)
    return folded.strip() or ch


def foldable(regex: str) -> str:
    """``regex`` that also reads the folded view of a text, where "não" is "nao" and "ł" is "l":
    a rule looks for its words in every view, so the words that must be absent (negations, the
    ``unless`` of a row) must be found there too."""
    out: list[str] = []
    i, in_class = 0, False
    while i < len(regex):
        ch = regex[i]
        if ch == "\\":
            out.append(regex[i : i + 2])
            i += 2
            continue
        if ch == "[" and not in_class:
            in_class = True
        elif ch == "]" and in_class:
            in_class = False
        folded = _folded_letter(ch) if ch.isalpha() and not ch.isascii() else ch
        if folded == ch or not folded.isascii():
            out.append(ch)
        elif in_class:
            out.append(ch + (folded if len(folded) == 1 else ""))
        else:
            out.append(f"[{ch}{folded}]" if len(folded) == 1 else f"(?:{ch}|{folded})")
        i += 1
    return "".join(out)


def unnegated(words: str, language: str, *, unless: str = "") -> str:
    """``words`` where no negation of ``language`` precedes them in their clause (or, in German,
    Dutch and Swedish, follows them within three words), in a clause without ``unless``."""
    negation = foldable(NEGATIONS[language])
    after = rf"(?!(?:\s+[\w'’-]+){{0,3}}?\s+{negation})" if language in _AFTER else ""
    return rf"{_STARTS}{_without(unless)}(?:(?!{negation}){_CHAR})*?(?:{words}){after}"


def guarded(words: str, unless: str) -> str:
    """``words`` in a clause without ``unless`` (for languages whose negations are the verb's)."""
    return rf"{_STARTS}{_without(unless)}{_CHAR}*?(?:{words})"


def _without(unless: str) -> str:
    return rf"(?!{_CHAR}*?(?:{foldable(unless)}))" if unless else ""


def instruction(words: str, after: str = "", *, unless: str = "") -> str:
    """``words`` as an order: first in their clause or after a comma, a colon or a dash, maybe
    behind one of ``after`` ("then", "please", "first" ...), in a clause without ``unless``. A
    negation there is none of these, so "never ask ..." is not an order to ask."""
    lead = rf"(?:(?:{after})\s+){{0,2}}" if after else ""
    return rf"(?:{_STARTS}|(?<=[,，、:：—–-])){_without(unless)}\s*{lead}(?:{words})"


def clause_rule(
    pattern_id: str,
    category: Category,
    scopes: frozenset[Scope],
    reason: str,
    alternatives: list[tuple[str, ...]],
    *,
    views: frozenset[View],
    negatable: bool = False,
) -> ClauseRule:
    """:func:`.schema.clause_rule` without its Latin gate. The literal prefilter already skips
    each alternative whose words a text lacks; the gate, one regex of every Latin first part,
    reads the whole text again with all of them, which costs more than it saves once a row
    holds tens of languages (and first parts that scan a clause, as :func:`unnegated` does)."""
    rule = schema.clause_rule(
        pattern_id,
        category,
        scopes,
        reason,
        [tuple(as_read(part) for part in alt) for alt in alternatives],
        views=views,
        negatable=negatable,
    )
    return dataclasses.replace(rule, latin_gate=None)


def as_read(regex: str) -> str:
    """``regex`` in the form the screen reads texts in (NFKC, :mod:`kenning.safety.canonical`):
    Thai SARA AM is two characters there, "ำ" in a word list would never match."""
    return regex.replace("\u0e33", "\u0e4d\u0e32")
