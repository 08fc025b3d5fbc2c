"""Text as the index sees it, and user queries turned into safe FTS5 queries.

Invariants:
- ``fts_or_query`` never produces FTS5 syntax from user text: every term is
  a double-quoted phrase (inner quotes doubled), joined with OR, so any
  string — operators, ``col:``, ``*``, brackets, emoji — is a valid query.
- CJK runs are indexed as overlapping bigrams plus the run's last character
  (``cjk_index_text``), so 2+ character Chinese queries match inside longer
  runs and a 1-character query works as the prefix term ``"辣"*``. The same
  transformation is applied to query terms, so both sides agree.
- Documents are ``"{speaker or role}: {content}"``; huge contents are capped
  (tool output can be megabytes) so one message cannot dominate the index.
"""

from __future__ import annotations

import re

# A general English stopword list (function and question words); nothing
# corpus-specific. Removing it from queries was worth +.04-.06 R@10.
_STOPWORD_TEXT = """
a about above after again against all am an and any are aren't as at be because
been before being below between both but by can can't cannot could couldn't did
didn't do does doesn't doing don't down during each few for from further had
hadn't has hasn't have haven't having he he'd he'll he's her here here's hers
herself him himself his how how's i i'd i'll i'm i've if in into is isn't it
it's its itself let's me more most mustn't my myself no nor not of off on once
only or other ought our ours ourselves out over own same shan't she she'd
she'll she's should shouldn't so some such than that that's the their theirs
them themselves then there there's these they they'd they'll they're they've
this those through to too under until up very was wasn't we we'd we'll we're
we've were weren't what what's when when's where where's which while who who's
whom why why's will with won't would wouldn't you you'd you'll you're you've
your yours yourself yourselves s t d ll m re ve also just get got would may
might shall us much many one ever
"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())

# CJK ideographs (+ Ext A, compatibility), kana, Hangul: unicode61 would
# treat a whole run as one token.
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
_CJK_RUN = re.compile(f"[{_CJK}]+")
# A word stops where a CJK run starts ("2024年3月" is 2024, 年, 3, 月…), as
# on the index side (``cjk_index_text`` puts spaces around CJK runs).
_WORD = f"[^\\W_{_CJK}]+"
_TOKEN = re.compile(f"[{_CJK}]+|{_WORD}(?:'{_WORD})?", re.UNICODE)

# Caps on what one message contributes: enough for any real chat turn,
# while a 5 MB tool dump cannot bloat the index or the embedding queue.
MAX_INDEX_CHARS = 8_000
MAX_PASSAGE_CHARS = 2_000
MAX_QUERY_CHARS = 2_000
MAX_QUERY_TERMS = 64


def cjk_grams(run: str, *, for_index: bool = False) -> list[str]:
    """Overlapping bigrams of a CJK run (a 1-character run stays a unigram)."""
    if len(run) == 1:
        return [run]
    grams = [run[i : i + 2] for i in range(len(run) - 1)]
    return [*grams, run[-1]] if for_index else grams


def cjk_index_text(text: str) -> str:
    """CJK runs replaced by space-separated bigrams (+ last char); the rest untouched."""
    return _CJK_RUN.sub(lambda m: " " + " ".join(cjk_grams(m.group(), for_index=True)) + " ", text)


def cjk_query_text(text: str) -> str:
    """CJK runs replaced by their space-separated bigrams: the query side of ``cjk_index_text``
    for callers that split on whitespace (the FTS5 baseline of the benchmarks)."""
    return _CJK_RUN.sub(lambda m: " " + " ".join(cjk_grams(m.group())) + " ", text)


def has_cjk(text: str) -> bool:
    return _CJK_RUN.search(text) is not None


def doc_text(speaker: str | None, role: str, content: str, *, cap: int = MAX_INDEX_CHARS) -> str:
    """The document a message is indexed (and embedded) as."""
    body = content if len(content) <= cap else content[:cap]
    return f"{speaker or role}: {body}"


def passage_text(current: str, previous: str | None) -> str:
    """The message it replies to (if any) on its own line, then this one.

    Short replies ("Yes! It was amazing") carry answers but none of the
    question's words; their context does (+.10 dense R@10 on LoCoMo). Which
    message counts as replied to is decided by ``storage.identity.message_docs``.
    """
    cur = current[:MAX_PASSAGE_CHARS]
    if previous is None:
        return cur
    return f"{previous[: MAX_PASSAGE_CHARS // 2]}\n{cur}"


def query_terms(query: str, *, drop_stopwords: bool = True) -> list[str]:
    """Words (CJK runs as bigrams), lowercased, stopwords removed, de-duplicated."""
    out: list[str] = []
    for token in _TOKEN.findall(query[:MAX_QUERY_CHARS]):
        if _CJK_RUN.fullmatch(token):
            out.extend(cjk_grams(token))
            continue
        token = token.lower()
        if drop_stopwords and (token in STOPWORDS or token.split("'")[0] in STOPWORDS):
            continue
        out.append(token)
    return list(dict.fromkeys(out))[:MAX_QUERY_TERMS]


def quote_term(term: str) -> str:
    # NUL ends the string inside FTS5's parser ("unterminated string").
    quoted = '"' + term.replace("\x00", " ").replace('"', '""') + '"'
    # A single CJK character: prefix query over the indexed bigrams/unigrams.
    return quoted + "*" if len(term) == 1 and _CJK_RUN.fullmatch(term) else quoted


def fts_or_query(terms: list[str]) -> str:
    """OR of quoted terms ('' when there are none). Implicit AND finds almost nothing."""
    return " OR ".join(quote_term(t) for t in terms if t)


def baseline_fts_query(question: str) -> str:
    """The textbook baseline: OR of the whitespace tokens, each quoted."""
    return fts_or_query([t for t in question.split()[:MAX_QUERY_TERMS] if t.strip()])
