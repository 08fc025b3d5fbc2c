"""Rows of the threat screen's corpus format, the one ``kenning bench safety --corpus`` reads:
the shared writer of the ``safety_*_corpus.py`` tools."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

Row = dict[str, str]


def row(
    id: str, text: str, *, label: str, category: str, split: str, source: str, language: str = "en"
) -> Row:
    return {
        "id": id, "text": text, "label": label, "category": category,
        "language": language, "split": split, "source": source,
    }  # fmt: skip


def write(rows: Sequence[Row], out: Path) -> None:
    """One JSON object a line (``ensure_ascii`` off: the bench reads UTF-8)."""
    with out.open("w", encoding="utf-8") as handle:
        for item in rows:
            handle.write(json.dumps(item, ensure_ascii=False) + "\n")
    print(f"wrote {len(rows):,} rows to {out}")
