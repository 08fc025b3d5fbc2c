"""Train the learned layer of the threat screen (kenning.safety.learned) and write its weights.

    pip install scikit-learn==1.9.1   # training only; Kenning itself needs numpy alone
    python tools/train_safety_classifier.py

Inputs, all written for this project (never the held-out split of the corpus: the script
refuses to read it):
- the dev split of tests/safety/corpus/corpus.jsonl (every round, the external one included);
- tests/safety/training/set*.jsonl (see the README there);
- this repository's own documentation paragraphs (README.md, prompt templates, bundled skills)
  as benign text about memory, tools and safety;
- the ordinary notes of the pattern tests (every ``*CLEAN`` list in
  tests/safety/test_patterns*.py, and ``INERT`` and ``NOT_DEMOTED``) and the quoted attacks
  the mention tests keep clean (``MENTIONS`` in tests/safety/test_mentions.py);
- the benign battery (tests/safety/battery/benign.jsonl, from tools/safety_benign_battery.py):
  the entries, skill descriptions and scripts Kenning's own tests write expecting success;
- documentation (tools/safety_docs_corpus.py, dev groups only): paragraphs of the standard
  library's docstrings and Debian's READMEs, and whole documents (Debian's READMEs, the Markdown
  of the openly licensed skills in clones of anthropics/skills and obra/superpowers, SKILL_ROOTS).
Texts over ``learned.LONG_CHARS`` get thresholds of their own, from the long benign texts'
out-of-fold scores: ``block_long`` for the whole text and ``block_piece`` for its highest piece.
Those train the ``memory`` head. The ``jailbreak`` head learns the long role-play prompts
collected in the wild (PUBLIC: jailbreak_llms and Giskard's injections, outside the
repository, see src/kenning/safety/model/README.md) against the same benign texts: trained
into one head with the memory entries, they cost it a third of its out-of-fold recall on the
corpus's external dev round (0.52 -> 0.37 at 0.5 % false positives).

The model is sklearn's TF-IDF (sublinear tf, smoothed idf, l2) over the hashed character
n-grams of ``learned.features`` (the memory head also over its words and word pairs) and a
class-balanced logistic regression. Thresholds come from
out-of-fold scores (5 folds), computed with the shipped arithmetic and float16 weights:
``block`` lets 0.5 % of the benign texts through, ``review`` 5 %. Texts the layer does not judge
(fewer than ``learned.MIN_WORDS`` words: a secret alone, a hash, a one-line command) are left out
of training and calibration alike: the shipped layer never scores them, the rules do.
"""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
from scipy.sparse import csr_matrix
from sklearn.feature_extraction.text import TfidfTransformer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from kenning.safety import learned  # noqa: E402

sys.path.insert(0, str(ROOT / "tools"))
import safety_docs_corpus as docs_corpus  # noqa: E402

CORPUS = ROOT / "tests" / "safety" / "corpus" / "corpus.jsonl"
TRAINING = sorted((ROOT / "tests" / "safety" / "training").glob("set*.jsonl"))
PUBLIC = Path("/work/data-cache/public.jsonl")  # built as model/README.md says
JAILBREAK_SOURCES = ("verazuo/jailbreak_llms", "Giskard-AI/prompt-injections")
BENIGN_PROMPTS = "deepset/prompt-injections"  # its benign train rows: ordinary chat requests
DOCS = ["README.md", "src/kenning/prompt/templates/*.md", "src/kenning/skills/bundled/*/SKILL.md"]
CLEAN_FILES = sorted((ROOT / "tests" / "safety").glob("test_patterns*.py")) + [
    ROOT / "tests" / "safety" / "test_mentions.py"
]
BATTERY = ROOT / "tests" / "safety" / "battery" / "benign.jsonl"
# Documentation paragraphs (tools/safety_docs_corpus.py): the standard library's docstrings,
# dev groups only; its held-out groups, installed packages and Debian's docs stay unseen.
DOC_SOURCES = ("stdlib", "debian")
# Whole documents (``docs_corpus.documents``, dev groups only): Debian's READMEs and the openly
# licensed skills of two public skill collections, cloned here (see model/README.md). Trained
# on paragraphs alone, the jailbreak head refused about a third of whole READMEs over 2,000
# characters and of real SKILL.md files: it had only ever seen long texts among the jailbreaks.
DOCUMENT_SOURCES = ("debian", "skills")
SKILL_ROOTS = (
    Path("/work/data-cache/src/anthropic-skills"),
    Path("/work/data-cache/src/superpowers"),
)
# Besides every list named *CLEAN: the lists of texts the tests keep clean under other names.
KEPT_CLEAN_LISTS = ("MENTIONS", "INERT", "NOT_DEMOTED")
BLOCK_FP = 0.005
REVIEW_FP = 0.05
C = 16.0  # chosen on the out-of-fold scores of the dev data (4, 16, 64 tried)

Row = tuple[str, int, str]  # text, label (1 = malicious), source


def _jsonl(path: Path) -> list[dict[str, str]]:
    # split on "\n" alone: splitlines() also breaks at U+2028 inside a JSON string
    return [json.loads(line) for line in path.read_text(encoding="utf-8").split("\n") if line]


def load() -> list[Row]:
    rows: list[Row] = []
    for r in _jsonl(CORPUS):
        if r["split"] == "dev":  # the held-out split is never read here
            rows.append((r["text"], int(r["label"] == "malicious"), f"corpus:{r['source']}"))
    for path in TRAINING:
        rows += [(r["text"], int(r["label"] == "malicious"), path.stem) for r in _jsonl(path)]
    for pattern in DOCS:
        for doc in ROOT.glob(pattern):
            for para in re.split(r"\n\s*\n", doc.read_text(encoding="utf-8")):
                para = para.strip()
                if 20 <= len(para) <= 1500 and not para.startswith("```"):
                    rows.append((para, 0, "kenning-docs"))
    rows += [(note, 0, "tests-clean") for note in clean_notes()]
    rows += [(r["text"], 0, "tests-battery") for r in _jsonl(BATTERY)]
    for r in docs_corpus.rows(DOC_SOURCES, "dev"):
        rows.append((r["text"], 0, f"docs-{r['source'].split(':')[0]}"))
    rows += [(text, 0, source) for text, source in dev_documents()]
    seen: set[str] = set()
    unique = [r for r in rows if not (r[0] in seen or seen.add(r[0]))]  # type: ignore[func-returns-value]
    return unique


def dev_documents() -> list[tuple[str, str]]:
    """(text, source) of the dev documents; the skill collections must be cloned."""
    missing = [str(p) for p in SKILL_ROOTS if not p.is_dir()]
    if missing:
        raise SystemExit(
            f"no {', '.join(missing)}: clone them as src/kenning/safety/model/README.md says"
        )
    found = docs_corpus.documents(DOCUMENT_SOURCES, "dev", SKILL_ROOTS)
    return [(r["text"], f"document-{r['source'].split(':')[0]}") for r in found]


def clean_notes() -> list[str]:
    """The ordinary notes the pattern tests keep (their ``CLEAN`` lists, and the mention
    tests' ``MENTIONS``): hard negatives written against the rules ("Add a changelog entry to
    every pull request you open"),
    trained on as benign like the rest; the tests then check the model keeps them clean."""
    notes: list[str] = []
    for path in CLEAN_FILES:
        spec = importlib.util.spec_from_file_location(path.stem, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        for name in sorted(vars(module)):
            if name.endswith("CLEAN") or name in KEPT_CLEAN_LISTS:
                notes += list(getattr(module, name))
    return notes


def matrix(texts: list[str], words: bool = True) -> csr_matrix:
    rows, cols, vals = [], [], []
    for i, text in enumerate(texts):
        buckets, counts = learned.features(text, words)
        rows.append(np.full(len(buckets), i))
        cols.append(buckets)
        vals.append(counts)
    return csr_matrix(
        (np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
        shape=(len(texts), 1 << learned.BUCKETS_LOG2),
    )


def _as_shipped(a: np.ndarray) -> np.ndarray:
    return np.asarray(a, dtype=np.float16).astype(np.float32)


def fit(x: csr_matrix, y: np.ndarray, words: bool = True) -> tuple[learned.Model, TfidfTransformer]:
    """TF-IDF + logistic regression, as the shipped float16 model scores it."""
    tfidf = TfidfTransformer(sublinear_tf=True)
    clf = LogisticRegression(C=C, max_iter=5000, class_weight="balanced")
    clf.fit(tfidf.fit_transform(x), y)
    weights, idf = _as_shipped(clf.coef_[0]), _as_shipped(tfidf.idf_)
    return learned.Model(weights, idf, float(clf.intercept_[0]), 1.0, 1.0, words), tfidf


def public(path: Path) -> tuple[list[Row], list[Row]]:
    """(the public jailbreaks, the public ordinary requests), test splits left out."""
    if not path.is_file():
        raise SystemExit(f"no {path}: build it as src/kenning/safety/model/README.md says")
    rows = [r for r in _jsonl(path) if r["split"] != "test"]
    jailbreaks = [
        (r["text"], 1, "public-jailbreaks")
        for r in rows
        if r["source"].startswith(JAILBREAK_SOURCES)
    ]
    requests = [
        (r["text"], 0, "public-requests")
        for r in rows
        if r["source"].startswith(BENIGN_PROMPTS) and not int(r["label"])
    ]
    return jailbreaks, requests


def judged(rows: list[Row], min_chars: int = 0) -> list[Row]:
    """The rows the shipped head scores (``learned.judges``, at least ``min_chars`` long); the
    count set aside is printed."""
    kept = [r for r in rows if learned.judges(r[0]) and len(r[0]) >= min_chars]
    dropped = len(rows) - len(kept)
    mal = sum(r[1] for r in rows) - sum(r[1] for r in kept)
    print(
        f"  not judged (< {learned.MIN_WORDS} words or < {min_chars} characters):"
        f" {mal} malicious, {dropped - mal} benign"
    )
    return kept


def head(name: str, rows: list[Row], words: bool) -> tuple[learned.Model, TfidfTransformer]:
    """One head trained on the ``rows`` the layer judges (with or without the word features);
    thresholds from its out-of-fold scores."""
    rows = judged(rows, learned.MIN_CHARS[name])
    texts = [r[0] for r in rows]
    y = np.array([r[1] for r in rows])
    x = matrix(texts, words)
    oof, oof_piece = np.zeros(len(rows)), np.zeros(len(rows))
    long = np.array([len(t) > learned.LONG_CHARS for t in texts])
    for train, test in StratifiedKFold(5, shuffle=True, random_state=14).split(texts, y):
        model, _ = fit(x[train], y[train], words)
        oof[test] = [learned.score(model, texts[i]) for i in test]
        oof_piece[test] = [learned.highest_piece(model, texts[i]) if long[i] else 0 for i in test]
    benign, malicious = oof[y == 0], oof[y == 1]
    # Each family of benign text gets the false-positive rate on its own: thousands of easy
    # documentation paragraphs would otherwise pull the threshold down onto the hard notes.
    # Texts over learned.LONG_CHARS get a block threshold of their own, from the long benign
    # texts alone (see learned.LONG_CHARS); the short ones' threshold ignores them.
    docs = np.array([r[2].startswith("docs-") for r in rows])
    families = [f for f in (oof[(y == 0) & docs & ~long], oof[(y == 0) & ~docs & ~long]) if len(f)]
    block = max(float(np.quantile(f, 1 - BLOCK_FP, method="higher")) for f in families) + 1e-6
    review = max(float(np.quantile(f, 1 - REVIEW_FP, method="higher")) for f in families) + 1e-6
    # Long texts: the whole against block_long, and its highest piece against block_piece,
    # each letting through at most BLOCK_FP / 2 of the long benign texts.
    tail = 1 - BLOCK_FP / 2
    block_long = max(block, float(np.quantile(oof[(y == 0) & long], tail, method="higher")) + 1e-6)
    block_piece = max(
        block, float(np.quantile(oof_piece[(y == 0) & long], tail, method="higher")) + 1e-6
    )
    refused = np.where(long, (oof >= block_long) | (oof_piece >= block_piece), oof >= block)
    print(f"{name}: {len(rows)} texts ({int(y.sum())} malicious); out-of-fold, 5 folds:")
    print(
        f"  block {block:.4f} (over {learned.LONG_CHARS:,} characters {block_long:.4f}, "
        f"a piece {block_piece:.4f}): "
        f"recall {np.mean(refused[y == 1]):.3f}, FP {np.mean(refused[y == 0]):.4f}; long texts "
        f"recall {np.mean(refused[(y == 1) & long]):.3f}, "
        f"FP {np.mean(refused[(y == 0) & long]):.4f}"
    )
    recall, fp = np.mean(malicious >= review), np.mean(benign >= review)
    print(f"  review {review:.4f}: recall {recall:.3f}, FP {fp:.4f}")
    for source in sorted({r[2] for r in rows}):
        part = np.array([r[2] == source for r in rows])
        mal, ben = part & (y == 1), part & (y == 0)
        recall = f"{np.mean(refused[mal]):.3f}" if mal.any() else "  -  "
        fp = f"{np.mean(refused[ben]):.4f}" if ben.any() else "  -  "
        print(f"  {source:<28} recall@block {recall}  FP@block {fp}")
    final, tfidf = fit(x, y, words)
    model = learned.Model(final.weights, final.idf, final.bias, block, review, words, 0, block_long)
    return replace(model, block_piece=block_piece), tfidf


def main() -> int:
    jailbreaks, requests = public(PUBLIC)
    # Ordinary chat requests ("How long should I train for a marathon?") are benign for both
    # heads: without them either head takes any first-person request for an attack.
    rows = load() + requests
    memory, _ = head("memory", rows, words=True)
    benign = [r for r in rows if r[1] == 0]
    jailbreak, _ = head("jailbreak", benign + jailbreaks, words=False)
    arrays: dict[str, np.ndarray] = {}
    for name, model in zip(learned.HEADS, (memory, jailbreak), strict=True):
        arrays[f"{name}_idf"] = model.idf.astype(np.float16)
        arrays[f"{name}_weights"] = model.weights.astype(np.float16)
        arrays[f"{name}_bias"] = np.float32(model.bias)
        arrays[f"{name}_block"] = np.float32(model.block)
        arrays[f"{name}_review"] = np.float32(model.review)
        arrays[f"{name}_block_long"] = np.float32(model.block_long)
        arrays[f"{name}_block_piece"] = np.float32(model.block_piece)
        arrays[f"{name}_words"] = np.bool_(model.words)
    learned.MODEL_PATH.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(learned.MODEL_PATH, **arrays)
    print(f"wrote {learned.MODEL_PATH} ({learned.MODEL_PATH.stat().st_size:,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
