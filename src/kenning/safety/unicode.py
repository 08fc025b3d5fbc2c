"""Invisible and bidirectional characters: which ones are a threat, and stripping them.

Some characters show nothing, or change how the text around them is displayed, while a model
still reads them: zero-width characters split "ig\\u200bnore" so a filter misses the word,
bidirectional controls reorder what a reviewer sees ("Trojan Source", CVE-2021-42574), Unicode
tag characters spell out hidden ASCII ("ASCII smuggling") and runs of variation selectors encode
arbitrary bytes. :func:`find_invisible` reports each kind found in the RAW text (NFKC keeps these
characters, so normalising first would not help), but lets the same characters through where
ordinary text needs them: a ZWJ inside an emoji or between Persian letters, an RLM next to
Hebrew, tag characters inside a subdivision flag such as England's. :func:`strip_invisible` and
:func:`separate_words` are the two steps :func:`kenning.safety.threats.normalise` takes to remove
them before the patterns are matched.
"""

from __future__ import annotations

import functools
import unicodedata
from collections.abc import Iterable
from typing import Final

from kenning.safety import compiled

# The kinds of invisible character a scan reports, as finding ids, with the reason shown to the
# user. Findings are listed in this order, after those of the pattern table.
_SUFFIX: Final = " (invisible Unicode)"
INVISIBLE_REASONS: Final[dict[str, str]] = {
    "zero_width": "contains zero-width characters that can hide or split words" + _SUFFIX,
    "bidi_control": "contains bidirectional controls that make text display differently" + _SUFFIX,
    "tag_characters": "contains Unicode tag characters, which can smuggle hidden text" + _SUFFIX,
    "variation_selector_run": "contains a run of variation selectors that can hide data" + _SUFFIX,
    "hangul_filler": "contains Hangul filler characters, which render as blank space" + _SUFFIX,
    "control_characters": "contains control characters such as terminal escapes" + _SUFFIX,
    "format_character": "contains invisible formatting characters" + _SUFFIX,
}

# Every format character (Cf), Default_Ignorable_Code_Point, variation selector and control
# character, except the ordinary whitespace controls \t \n \r \f. Inclusive ranges. A test
# checks that this covers every Cf character of the running Python's Unicode database.
SUSPECT_RANGES: Final[tuple[tuple[int, int], ...]] = (
    (0x0000, 0x0008),  # C0 controls before TAB
    (0x000B, 0x000B),  # VERTICAL TAB
    (0x000E, 0x001F),  # C0 controls after CR, ESC among them
    (0x007F, 0x009F),  # DELETE and the C1 controls
    (0x00AD, 0x00AD),  # SOFT HYPHEN
    (0x034F, 0x034F),  # COMBINING GRAPHEME JOINER
    (0x0600, 0x0605),  # Arabic number signs (prepended concatenation marks)
    (0x061C, 0x061C),  # ARABIC LETTER MARK
    (0x06DD, 0x06DD),  # ARABIC END OF AYAH
    (0x070F, 0x070F),  # SYRIAC ABBREVIATION MARK
    (0x0890, 0x0891),  # ARABIC POUND / PIASTRE MARK ABOVE
    (0x08E2, 0x08E2),  # ARABIC DISPUTED END OF AYAH
    (0x115F, 0x1160),  # HANGUL CHOSEONG / JUNGSEONG FILLER
    (0x17B4, 0x17B5),  # KHMER VOWEL INHERENT AQ / AA
    (0x180B, 0x180F),  # Mongolian free variation selectors, MONGOLIAN VOWEL SEPARATOR
    (0x200B, 0x200F),  # ZWSP, ZWNJ, ZWJ, LRM, RLM
    (0x202A, 0x202E),  # bidi embeddings and overrides
    (0x2060, 0x206F),  # word joiner, invisible operators, bidi isolates, deprecated formats
    (0x3164, 0x3164),  # HANGUL FILLER
    (0xFE00, 0xFE0F),  # VARIATION SELECTOR-1 to -16
    (0xFEFF, 0xFEFF),  # ZERO WIDTH NO-BREAK SPACE, the byte order mark
    (0xFFA0, 0xFFA0),  # HALFWIDTH HANGUL FILLER
    (0xFFF0, 0xFFFB),  # unassigned specials, interlinear annotation controls
    (0x110BD, 0x110BD),  # KAITHI NUMBER SIGN
    (0x110CD, 0x110CD),  # KAITHI NUMBER SIGN ABOVE
    (0x13430, 0x1343F),  # Egyptian hieroglyph format controls
    (0x1BCA0, 0x1BCA3),  # shorthand format controls
    (0x1D173, 0x1D17A),  # musical symbol format controls (BEGIN BEAM ...)
    (0xE0000, 0xE0FFF),  # tags, VARIATION SELECTOR-17 to -256, reserved ignorables
)

# Suspects allowed anywhere (still removed before matching): they hide nothing and turn up in
# ordinary text.
_ALLOWED_RANGES: Final[tuple[tuple[int, int], ...]] = (
    (0x00AD, 0x00AD),  # soft hyphen: pages copied from the web, PDFs
    (0x034F, 0x034F),  # combining grapheme joiner
    # prepended concatenation marks (Arabic, Syriac, Kaithi number signs): they are visible
    (0x0600, 0x0605),
    (0x06DD, 0x06DD),
    (0x070F, 0x070F),
    (0x0890, 0x0891),
    (0x08E2, 0x08E2),
    (0x110BD, 0x110BD),
    (0x110CD, 0x110CD),
    (0x115F, 0x1160),  # Hangul fillers that are part of conjoining syllables
    (0x17B4, 0x17B5),  # Khmer inherent vowels
    (0x180B, 0x180D),  # Mongolian free variation selectors (not 0x180E, a joiner below)
    (0x180F, 0x180F),
)
ALLOWED_FORMAT: Final[frozenset[int]] = frozenset(
    cp for lo, hi in _ALLOWED_RANGES for cp in range(lo, hi + 1)
)

# ZWJ and ZWNJ are ordinary in emoji (👨‍👩‍👧), Persian, Arabic and Indic text: allowed when BOTH
# neighbours are in one of these blocks, or are symbols or combining marks. "ig\u200dnore" has
# Latin neighbours and is reported.
_JOINING_SCRIPTS: Final[tuple[tuple[int, int], ...]] = (
    (0x0590, 0x08FF),  # Hebrew, Arabic, Syriac, Thaana, NKo, Samaritan, Mandaic
    (0x0900, 0x0DFF),  # Devanagari to Sinhala
    (0x0F00, 0x0FFF),  # Tibetan
    (0x1000, 0x109F),  # Myanmar
    (0x1780, 0x18AF),  # Khmer, Mongolian
    (0xA8E0, 0xA8FF),  # Devanagari Extended
    (0xFB1D, 0xFDFF),  # Hebrew and Arabic presentation forms
    (0xFE70, 0xFEFC),  # Arabic presentation forms B
    (0x1F000, 0x1FAFF),  # emoji, pictographs and other symbols
)

_VARIATION_SELECTORS: Final = frozenset([*range(0xFE00, 0xFE10), *range(0xE0100, 0xE01F0)])

# A subdivision flag is WAVING BLACK FLAG, 2 to 7 tag digits or lowercase tag letters (the
# region code, "gbeng" for England), then CANCEL TAG. Tag characters anywhere else smuggle text.
_BLACK_FLAG: Final = "\U0001f3f4"
_FLAG_RE: Final = compiled.regex(
    _BLACK_FLAG + "([\U000e0030-\U000e0039\U000e0061-\U000e007a]{2,7})\U000e007f"
)


def _char_class(ranges: Iterable[tuple[int, int]], *, but: str = "") -> str:
    """A regex character class of the code points in ``ranges``, less those in ``but``."""
    parts: list[str] = []
    for lo, hi in ranges:
        start = lo
        for cp in range(lo, hi + 2):
            if cp > hi or chr(cp) in but:
                if start < cp:
                    parts.append(f"\\U{start:08x}-\\U{cp - 1:08x}")
                start = cp + 1
    return "[" + "".join(parts) + "]"


SUSPECT_RE: Final = compiled.regex(_char_class(SUSPECT_RANGES))

# Controls that separate words: VERTICAL TAB, the information separators \x1c-\x1f and NEXT LINE.
# They are not removed but turned into spaces, so "ignore\x0bprevious" stays two words.
_SEPARATING_CONTROLS: Final = "\x0b\x1c\x1d\x1e\x1f\x85"
_STRIP_RE: Final = compiled.regex(_char_class(SUSPECT_RANGES, but=_SEPARATING_CONTROLS))
# What separate_words turns into a newline, and into a space. OGHAM SPACE MARK is the one space
# character that NFKC does not fold to " ", and patterns match in ASCII mode, where \s is ASCII.
_LINE_BREAKS: Final = "\x85\u2028\u2029"
_SPACES: Final = "\x0b\x1c\x1d\x1e\x1f\u1680"
_SEPARATOR_RE: Final = compiled.regex(f"[{_LINE_BREAKS}{_SPACES}]")


def separator_for(ch: str) -> str | None:
    """What :func:`separate_words` turns ``ch`` into ("\n" or " "), or None if it keeps it."""
    if ch in _LINE_BREAKS:
        return "\n"
    return " " if ch in _SPACES else None


@functools.lru_cache(maxsize=8192)
def is_stripped(ch: str) -> bool:
    """True if :func:`strip_invisible` removes ``ch``."""
    return _STRIP_RE.fullmatch(ch) is not None


def is_suspect(ch: str) -> bool:
    """True if ``ch`` is invisible or a control character (so an excerpt shows it escaped)."""
    return SUSPECT_RE.fullmatch(ch) is not None


def strip_invisible(text: str) -> str:
    """``text`` without its invisible characters, except the word-separating controls."""
    return _STRIP_RE.sub("", text)


def separate_words(text: str) -> str:
    """``text`` with line separators and NEXT LINE as newlines, other separators as spaces."""
    return _SEPARATOR_RE.sub(lambda m: "\n" if m.group() in _LINE_BREAKS else " ", text)


def find_invisible(raw: str, *, at_text_start: bool) -> dict[str, int]:
    """Each kind of invisible character in ``raw`` not allowed where it stands (a key of
    :data:`INVISIBLE_REASONS`), mapped to the index of its first occurrence. ``at_text_start``
    says ``raw`` is the start of the whole text, where a byte order mark is allowed."""
    flag_tags: set[int] = set()
    if _BLACK_FLAG in raw:
        for m in _FLAG_RE.finditer(raw):
            flag_tags.update(range(m.start(1), m.end(1) + 1))  # the tags and the CANCEL TAG
    first: dict[str, int] = {}
    for m in SUSPECT_RE.finditer(raw):
        kind = _classify(raw, m.start(), at_text_start, flag_tags)
        if kind is not None:
            first.setdefault(kind, m.start())
    return first


_MARK_LINE = 200  # how far on its line a bidi mark looks for the right-to-left text it serves
_MARKS = "\u200e\u200f\u061c"  # LRM, RLM, ALM: one does not vouch for another


def _classify(raw: str, i: int, at_text_start: bool, flag_tags: set[int]) -> str | None:
    """The kind of the suspect character ``raw[i]``, or None if it is allowed there."""
    cp = ord(raw[i])
    if cp <= 0x1F or 0x7F <= cp <= 0x9F:
        return "control_characters"
    if cp in ALLOWED_FORMAT:
        return None
    if cp == 0xFEFF:  # a byte order mark at the very start of a file is an encoding artefact
        return None if (i == 0 and at_text_start) else "zero_width"
    if cp in (0x200C, 0x200D, 0x180E):  # ZWNJ, ZWJ, MONGOLIAN VOWEL SEPARATOR
        ok = 0 < i < len(raw) - 1 and _joins(raw[i - 1]) and _joins(raw[i + 1])
        return None if ok else "zero_width"
    if cp in (0x200E, 0x200F, 0x061C):
        # LRM, RLM and ALM are ordinary on a line of Hebrew or Arabic text (around the Latin
        # snippet it quotes: "קבצי ה-CSS (\u200f`dir="rtl"`\u200f)") and cannot reorder anything.
        line_start = raw.rfind("\n", max(0, i - _MARK_LINE), i) + 1 or max(0, i - _MARK_LINE)
        line_end = raw.find("\n", i, i + _MARK_LINE)
        near = raw[line_start:i] + raw[i + 1 : line_end if line_end >= 0 else i + _MARK_LINE]
        rtl = any(unicodedata.bidirectional(c) in ("R", "AL") for c in near if c not in _MARKS)
        return None if rtl else "bidi_control"
    if 0x202A <= cp <= 0x202E or 0x2066 <= cp <= 0x2069:
        return "bidi_control"  # embeddings, overrides, isolates: "Trojan Source"
    if cp == 0x200B or 0x2060 <= cp <= 0x2064:  # ZWSP, word joiner, invisible operators
        return "zero_width"
    if _is_variation_selector(raw, i):
        # One selector after a base character is ordinary (❤️ is U+2764 U+FE0F); two in a row
        # never are: runs of them encode arbitrary bytes.
        run = _is_variation_selector(raw, i - 1) or _is_variation_selector(raw, i + 1)
        return "variation_selector_run" if run else None
    if 0xE0000 <= cp <= 0xE007F:
        return None if i in flag_tags else "tag_characters"
    if cp in (0x3164, 0xFFA0):  # compatibility fillers, used to build invisible identifiers
        return "hangul_filler"
    # The rest (deprecated, annotation, musical ... format controls) never belong in notes.
    return "format_character"


def _joins(ch: str) -> bool:
    """True if a ZWJ or ZWNJ may stand next to ``ch``."""
    if any(lo <= ord(ch) <= hi for lo, hi in _JOINING_SCRIPTS):
        return True
    # Symbols and marks, VARIATION SELECTOR-16 and the COMBINING ENCLOSING KEYCAP among them.
    return unicodedata.category(ch) in ("So", "Sk", "Mn", "Mc", "Me")


def _is_variation_selector(raw: str, j: int) -> bool:
    return 0 <= j < len(raw) and ord(raw[j]) in _VARIATION_SELECTORS
