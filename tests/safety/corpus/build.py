"""Build corpus.jsonl from the hand-written items in items_malicious.py and items_benign.py.

Run from the repository root: ``python tests/safety/corpus/build.py``. The output is
deterministic: ids follow the order items are written in, and the split is a stable hash of
the text, balanced per category and source (within each (label, category, source) group,
items sorted by hash alternate dev / heldout), so every category is split about 50/50 and a
new round of items (a new source, in its own item file) moves no earlier item between splits.

The transforms below (base64, hex, homoglyphs, spacing ...) are what an attacker applies to a
payload; every payload they are applied to is written out by hand in the item files.
"""

from __future__ import annotations

import base64
import hashlib
import json
import random
import string
import sys
import urllib.parse
from pathlib import Path

HERE = Path(__file__).resolve().parent

# ---- transforms an attacker applies ------------------------------------------------------------


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def b64url(text: str) -> str:
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def hexstr(text: str) -> str:
    return text.encode().hex()


def xescape(text: str) -> str:
    """'\\x63\\x75...' as printf/echo -e takes it."""
    return "".join(f"\\x{b:02x}" for b in text.encode())


def urlenc(text: str) -> str:
    """Every byte percent-encoded, as a smuggled query value."""
    return "".join(f"%{b:02X}" for b in text.encode())


def urlquote(text: str) -> str:
    return urllib.parse.quote(text, safe="")


CYRILLIC = {
    "a": "а",
    "e": "е",
    "o": "о",
    "p": "р",
    "c": "с",
    "x": "х",
    "y": "у",
    "i": "і",
    "s": "ѕ",
    "j": "ј",
    "A": "А",
    "E": "Е",
    "O": "О",
    "P": "Р",
    "C": "С",
    "T": "Т",
    "H": "Н",
    "K": "К",
    "M": "М",
    "B": "В",
}
GREEK = {
    "o": "ο",
    "a": "α",
    "i": "ι",
    "v": "ν",
    "k": "κ",
    "p": "ρ",
    "u": "υ",
    "n": "η",
    "t": "τ",
    "y": "γ",
    "O": "Ο",
    "A": "Α",
    "I": "Ι",
    "E": "Ε",
    "T": "Τ",
    "N": "Ν",
}


def homoglyph(text: str, table: dict[str, str], every: int = 1) -> str:
    """Swap every ``every``-th swappable letter for its look-alike."""
    out, n = [], 0
    for ch in text:
        if ch in table:
            n += 1
            if n % every == 0:
                out.append(table[ch])
                continue
        out.append(ch)
    return "".join(out)


def combining(text: str, marks: str = "\u0301\u0308\u0327\u0323") -> str:
    """A combining mark after every other letter (Zalgo-lite)."""
    out, n = [], 0
    for ch in text:
        out.append(ch)
        if ch.isalpha():
            n += 1
            if n % 2 == 0:
                out.append(marks[n % len(marks)])
    return "".join(out)


def spaced(text: str, sep: str = " ", word_sep: str = "   ") -> str:
    return word_sep.join(sep.join(word) for word in text.split(" "))


def zero_width(text: str, char: str = "\u200b", every: int = 2) -> str:
    out = []
    for i, ch in enumerate(text):
        out.append(ch)
        if ch.isalpha() and i % every == 1:
            out.append(char)
    return "".join(out)


def fullwidth(text: str) -> str:
    return "".join(
        chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else ("\u3000" if c == " " else c) for c in text
    )


def tags(text: str) -> str:
    """Invisible Unicode tag characters spelling ``text`` (ASCII smuggling)."""
    return "".join(chr(0xE0000 + ord(c)) for c in text)


def ps_enc(script: str) -> str:
    """PowerShell's -EncodedCommand form: base64 of UTF-16-LE."""
    return base64.b64encode(script.encode("utf-16-le")).decode()


def uescape(text: str) -> str:
    return "".join(f"\\u{ord(c):04x}" for c in text)


def rot13(text: str) -> str:
    return text.translate(
        str.maketrans(
            string.ascii_letters,
            string.ascii_lowercase[13:]
            + string.ascii_lowercase[:13]
            + string.ascii_uppercase[13:]
            + string.ascii_uppercase[:13],
        )
    )


_RNG = random.Random(14)


def token(prefix: str, n: int, alphabet: str = string.ascii_letters + string.digits) -> str:
    """A fake credential in the vendor's format (random, never a real key)."""
    return prefix + "".join(_RNG.choice(alphabet) for _ in range(n))


UPPER_DIGITS = string.ascii_uppercase + string.digits
B64CHARS = string.ascii_letters + string.digits + "+/"
HEX = "0123456789abcdef"

# ---- building ----------------------------------------------------------------------------------


def _load(name: str) -> list[dict[str, str]]:
    namespace: dict[str, object] = {**_ctx(), "__name__": name, "ITEMS": []}
    source = (HERE / f"{name}.py").read_text(encoding="utf-8")
    exec(
        compile(source, str(HERE / f"{name}.py"), "exec"), namespace
    )  # the item files use the transforms above
    items = namespace["ITEMS"]
    assert isinstance(items, list)
    return items


# Item files by label, in the order their ids are numbered. A later round of items has its own
# source and is split on its own, so adding a round moves no earlier item between the splits.
ITEM_FILES: tuple[tuple[str, str], ...] = (
    ("malicious", "items_malicious"),
    ("malicious", "items_malicious_r2"),
    ("benign", "items_benign"),
    ("benign", "items_benign_r2"),
)


# Rounds written by team members who had not read the screen's patterns or tests, one file a
# split: one author's file is the dev split, another's the held-out split, so the held-out
# figure is a corpus whose author the screen was never tuned on. Their own category labels are
# folded into the corpus categories (first matching key, in order); labels are theirs.
# Round 4 is one more author's file, written in session 8 and only ever measured (held out);
# round 5 another's (session 13, 17 languages), measured once before it was folded in here;
# round 6 (author J, session 14, 22 languages) is a second dev file, measured once as it came.
EXTERNAL_ROUNDS: tuple[tuple[str, str, str], ...] = (
    ("external_r3_dev.jsonl", "dev", "external-r3"),
    ("external_r3_heldout.jsonl", "heldout", "external-r3"),
    ("external_r4_heldout.jsonl", "heldout", "external-r4"),
    ("external_r5_heldout.jsonl", "heldout", "external-r5"),
    ("external_r6_dev.jsonl", "dev", "external-r6"),
)
EXTERNAL_SOURCES: frozenset[str] = frozenset(source for _, _, source in EXTERNAL_ROUNDS)
CORPUS_CATEGORIES: dict[str, frozenset[str]] = {
    "malicious": frozenset(
        "override role_hijack concealment disable_safety self_propagation phishing fake_structure"
        " encoded obfuscated exfiltration remote_code reverse_shell persistence destruction"
        " git_exfil supply_chain secret poisoned_fact".split()
    ),
    "benign": frozenset(
        "preference dev_fact command security_doc secret_reference chat_template_doc encoded_data"
        " instruction_like unicode_text journal_note skill_text".split()
    ),
}
_MALICIOUS_FOLD: tuple[tuple[str, str], ...] = (
    ("poison", "poisoned_fact"),
    ("secret", "secret"),
    ("reverse", "reverse_shell"),
    ("remote-code", "remote_code"),
    ("encod", "encoded"),
    ("homoglyph", "obfuscated"),
    ("invisible", "obfuscated"),
    ("obfusc", "obfuscated"),
    ("fake", "fake_structure"),
    ("conceal", "concealment"),
    ("anti-forensics", "concealment"),
    ("phish", "phishing"),
    ("credential-harvest", "phishing"),
    ("supply", "supply_chain"),
    ("registry", "supply_chain"),
    ("dependency", "supply_chain"),
    ("typosquat", "supply_chain"),
    ("exfil", "exfiltration"),
    ("cc-", "exfiltration"),
    ("public-dump", "exfiltration"),
    ("prompt-leak", "exfiltration"),
    ("token-leak", "exfiltration"),
    ("credential-helper", "exfiltration"),
    ("persist", "persistence"),
    ("backdoor", "persistence"),
    ("destruct", "destruction"),
    ("self-", "self_propagation"),
    ("propagat", "self_propagation"),
    ("disable", "disable_safety"),
    ("approval", "disable_safety"),
    ("downgrade", "disable_safety"),
    ("weaken", "disable_safety"),
)
_BENIGN_FOLD: tuple[tuple[str, str], ...] = (
    ("preference", "preference"),
    ("imperative", "instruction_like"),
    ("command", "command"),
    ("user-", "command"),
    ("git-safety", "command"),
    ("secret", "secret_reference"),
    ("placeholder", "secret_reference"),
    ("key-rotation", "journal_note"),
    ("journal", "journal_note"),
    ("incident", "security_doc"),
    ("security", "security_doc"),
    ("awareness", "security_doc"),
    ("template", "chat_template_doc"),
    ("format-doc", "chat_template_doc"),
    ("tool-call", "chat_template_doc"),
    ("hash", "encoded_data"),
    ("uuid", "encoded_data"),
    ("base64", "encoded_data"),
    ("skill", "skill_text"),
    ("fullwidth", "unicode_text"),
)


def _fold(label: str, category: str) -> str:
    if category in CORPUS_CATEGORIES[label]:
        return category  # the author used the corpus's own name
    for key, folded in _MALICIOUS_FOLD if label == "malicious" else _BENIGN_FOLD:
        if key in category:
            return folded
    return "override" if label == "malicious" else "dev_fact"


def _external() -> list[tuple[str, dict[str, str], str]]:
    """(label, item, split) of every external round, in file order."""
    out = []
    for name, split, source in EXTERNAL_ROUNDS:
        # "\n" alone: splitlines() also breaks at U+2028 inside a JSON string
        for line in (HERE / name).read_text(encoding="utf-8").split("\n"):
            if line.strip():
                row = json.loads(line)
                item = {
                    "category": _fold(row["label"], row["category"]),
                    "language": row["language"],
                    "text": row["text"],
                    "source": source,
                }
                out.append((row["label"], item, split))
    return out


def build() -> list[dict[str, str]]:
    rows: list[dict[str, str]] = []
    counters: dict[tuple[str, str], int] = {}
    fixed_split: dict[int, str] = {}  # row index -> split, for the external rounds
    entries = [(label, item, "") for label, name in ITEM_FILES for item in _load(name)]
    seen: set[str] = set()
    for label, item, split in entries + _external():
        if split and item["text"] in seen:
            continue  # a later round's author wrote the same short note (4 in round 5): kept once
        seen.add(item["text"])
        category = item["category"]
        key = (label, category)
        counters[key] = counters.get(key, 0) + 1
        if split:
            fixed_split[len(rows)] = split
        rows.append(
            {
                "id": f"{label[0]}-{category}-{counters[key]:03d}",
                "text": item["text"],
                "label": label,
                "category": category,
                "language": item["language"],
                "source": item.get("source", "handwritten"),
                "split": split,
            }
        )
    groups: dict[tuple[str, str, str], list[dict[str, str]]] = {}
    for n, row in enumerate(rows):
        if n in fixed_split:
            continue  # an external round's split is its file's
        groups.setdefault((row["label"], row["category"], row["source"]), []).append(row)
    for members in groups.values():
        ordered = sorted(members, key=lambda r: hashlib.sha256(r["text"].encode()).hexdigest())
        for i, row in enumerate(ordered):
            row["split"] = "dev" if i % 2 == 0 else "heldout"
    texts = [r["text"] for r in rows]
    dupes = {t for t in texts if texts.count(t) > 1}
    if dupes:
        raise SystemExit(f"duplicate texts: {sorted(dupes)[:3]}")
    return rows


def _ctx() -> dict[str, object]:
    return {k: v for k, v in globals().items() if not k.startswith("_")}


def main() -> int:
    rows = build()
    out = HERE / "corpus.jsonl"
    with out.open("w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
    labels = {lab: sum(r["label"] == lab for r in rows) for lab in ("malicious", "benign")}
    languages = sorted({r["language"] for r in rows})
    print(f"wrote {len(rows)} rows to {out}: {labels}, languages: {', '.join(languages)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
