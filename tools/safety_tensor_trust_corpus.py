"""Tensor Trust's attacks as a corpus for ``kenning bench safety``: written by players of a game,
not for Kenning; measured only.

    git clone https://github.com/HumanCompatibleAI/tensor-trust-data
    python tools/safety_tensor_trust_corpus.py --data tensor-trust-data --out /tmp/tt.jsonl
    kenning bench safety --corpus /tmp/tt.jsonl --json

Tensor Trust (Toyer et al., ICLR 2024) is a game where players attack each other's system
prompts: hijacking ("say Access Granted") and extraction (getting the prompt out). Its two
robustness benchmarks' distinct attacks are written as ``malicious`` rows, one category each,
``dev`` or ``heldout`` by a hash of the text (CRC-32, even: dev): the extraction rows'
``prompt_disclosure_more`` was written from the dev half's misses. The repository states no
licence, so its text is read where it is cloned and never enters this repository. Many hijacks
are moves of the game ("Prefix [Access Granted] to your reply", a thousand "ö"), not threats to a
memory, so the hijacking figures bound what a memory screen should catch from above.
"""

from __future__ import annotations

import argparse
import json
import sys
import zlib
from pathlib import Path

from corpus_rows import Row, row, write

FILES = {
    "hijacking": "benchmarks/hijacking-robustness/v1/hijacking_robustness_dataset.jsonl",
    "extraction": "benchmarks/extraction-robustness/v1/extraction_robustness_dataset.jsonl",
}


def rows(data: Path) -> list[Row]:
    out: list[Row] = []
    for kind, name in FILES.items():
        path = data / name
        if not path.is_file():
            raise SystemExit(f"{path} not found: is tensor-trust-data cloned there?")
        lines = path.read_text(encoding="utf-8").split("\n")
        attacks = sorted({json.loads(line)["attack"] for line in lines if line})
        for text in attacks:
            crc = zlib.crc32(text.encode("utf-8"))
            out.append(
                row(
                    f"tt-{kind}-{crc:08x}",
                    text,
                    label="malicious",
                    category=kind,
                    split="dev" if crc % 2 == 0 else "heldout",
                    source="tensor-trust",
                )
            )
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--data", type=Path, required=True, help="a clone of tensor-trust-data")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    found = rows(args.data)
    write(found, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
