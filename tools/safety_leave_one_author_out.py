"""How well the learned layer's memory head finds attacks by an author it was not trained on.

    pip install scikit-learn==1.9.1   # as for tools/train_safety_classifier.py
    python tools/safety_leave_one_author_out.py

For each author's file (the external round's dev file and every training set), a head is trained
on everything else the trainer reads, its block threshold set from that rest's out-of-fold scores
at the trainer's false-positive rate, and the left-out file is scored: recall and false positives
on an author the head never saw. The corpus's held-out split is never read (the trainer refuses).
Nothing is written.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
from sklearn.model_selection import StratifiedKFold

sys.path.insert(0, str(Path(__file__).resolve().parent))
import train_safety_classifier as trainer

from kenning.safety import learned


def main() -> int:
    _, requests = trainer.public(trainer.PUBLIC)
    rows = trainer.judged(trainer.load() + requests)  # what the shipped layer scores
    authors = sorted({s for _, _, s in rows if s.startswith(("set", "corpus:external-"))})
    for held in authors:
        train = [r for r in rows if r[2] != held]
        test = [r for r in rows if r[2] == held]
        texts, y = [r[0] for r in train], np.array([r[1] for r in train])
        x = trainer.matrix(texts)
        oof = np.zeros(len(train))
        for a, b in StratifiedKFold(5, shuffle=True, random_state=14).split(texts, y):
            model, _ = trainer.fit(x[a], y[a])
            oof[b] = [learned.score(model, texts[i]) for i in b]
        block = float(np.quantile(oof[y == 0], 1 - trainer.BLOCK_FP, method="higher")) + 1e-6
        model, _ = trainer.fit(x, y)
        scores = np.array([learned.score(model, r[0]) for r in test])
        labels = np.array([r[1] for r in test])
        print(
            f"{held:<22} recall {np.mean(scores[labels == 1] >= block):.3f}"
            f"  false positives {np.mean(scores[labels == 0] >= block):.3f}"
            f"  ({int(labels.sum())} attacks, {int((labels == 0).sum())} benign)",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
