"""Who a statement is about, and whether it denies something: read from its words alone.

Supersession (``search.supersede``) compares two statements' words; these are
the two things it reads beyond the words themselves:

- the named subjects: the capitalised names that open a sentence, before its
  verb — "Lorae Jonis received…", "Bryen Forster and Austen Moralez
  co-founded…", a list ("Anthony Berrin, Katherine Moonee, and Dr. Ronald
  Pahl all took part…") and after a short lead-in ("In 2022, Jaston Glace
  was…", "All four, Jaston Glace, …, attended…"). Scripts without case
  (Chinese) have no such names; there the words alone decide.
- a denial: "not", "never", "instead", "unable", 没有, 并非, 而是… A
  correction is often said as one, and a denial keeps fewer of the words the
  question used ("has never received any awards").

Two more, smaller: how the subject's sentence goes on (``Subjects.frame``:
"is a", "works"), which tells "X is a designer" -> "X is an engineer" (one
attribute, a new value) from "X published a book" (another); and every name a
question mentions (``named``), which are who it asks about, not what.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

from kenning.storage.text import MAX_QUERY_CHARS, STOPWORDS

_SENTENCE = re.compile(r"(?<=[.!?;:])\s+|\n+")
_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)?")
_JOINERS = frozenset({"and", "&"})
# Abbreviations that stand before or after a name: their full stop ends no
# sentence ("and Dr. Jamie Griffon are…", "Jamis Willingston Jr. to join").
_TITLES = frozenset({"dr", "mr", "mrs", "ms", "mx", "prof", "jr", "sr", "st"})
_LEAD_IN = 4  # words before a comma that may open a sentence ahead of its subject


@dataclass(frozen=True)
class Subjects:
    names: tuple[str, ...]  # lowercased name words, in order, without stopwords or titles
    group: bool  # some sentence names two or more people as its subject
    # how the first sentence with a named subject goes on: its opening
    # function words ("is a", "are", "has"), else its first word ("works")
    frame: tuple[str, ...] = ()


def subjects_of(text: str) -> Subjects:
    """The named subjects of each sentence of ``text``.

    A name is a run of capitalised words (titles such as "Dr." included) that
    goes straight on with a lowercase word; two or more words in all, so the
    capital that only opens a sentence names no one. Names are joined by
    "and", or listed with commas when each has two words or more and "and"
    closes the list ("A B, C D, and E F, attended…"). One comma may end a
    lead-in of up to four words ("In 2022,", "All three,"); any other
    punctuation ends the subject, so greetings and addressing ("Hey John, …",
    "Thanks, Melanie!") name no one: in dialogue those are what two replies
    share, not a subject.
    """
    names: list[str] = []
    group = False
    frame: tuple[str, ...] = ()
    for sentence in _sentences(text[:MAX_QUERY_CHARS]):
        found = _subject(sentence)
        if found is None:
            lead = sentence.split(", ", 1)
            if len(lead) == 2 and len(_WORD.findall(lead[0])) <= _LEAD_IN:
                found = _subject(lead[1])
        if found:
            people, rest = found
            names += [w.lower() for person in people for w in person]
            group = group or len(people) >= 2
            frame = frame or _frame(rest)
    kept = (w for w in dict.fromkeys(names) if w not in STOPWORDS and w not in _TITLES)
    return Subjects(tuple(kept), group, frame)


def _frame(predicate: str) -> tuple[str, ...]:
    """The function words a predicate opens with ("is a", "are", "has"; "an"
    read as "a"), else its first word ("works as…", "met during…")."""
    words = [w.lower() for w in _WORD.findall(predicate)]
    run = tuple("a" if w == "an" else w for w in itertools.takewhile(STOPWORDS.__contains__, words))
    return run or tuple(words[:1])


def names_in(text: str) -> list[str]:
    """The named subjects' words (``subjects_of``), as ``query_terms`` would list them."""
    return list(subjects_of(text).names)


def named(text: str) -> tuple[str, ...]:
    """Every capitalised word that does not open a sentence, lowercased: the
    names a question mentions anywhere ("Who among A B, C D and E F won…",
    "…a program with Jessa Lann?"), whoever its subject is."""
    words = (
        token.group().lower()
        for sentence in _sentences(text[:MAX_QUERY_CHARS])
        for token in list(_WORD.finditer(sentence))[1:]
        if token.group()[0].isupper()
    )
    return tuple(w for w in dict.fromkeys(words) if w not in STOPWORDS and w not in _TITLES)


def _sentences(text: str) -> list[str]:
    """Sentences, not split after a title ("Dr.") or an initial ("J. R. Smith")."""
    out: list[str] = []
    for piece in _SENTENCE.split(text):
        last = out[-1].rstrip() if out else ""
        word = last.rsplit(None, 1)[-1] if last else ""
        if last.endswith(".") and (word[:-1].lower() in _TITLES or _initial(word[:-1])):
            out[-1] = f"{last} {piece}"
        else:
            out.append(piece)
    return out


def _initial(word: str) -> bool:
    return len(word) == 1 and word.isupper()


def _subject(sentence: str) -> tuple[list[list[str]], str] | None:
    """The people a sentence opens with, each a list of words, and the rest of
    the sentence from its verb on; None when it opens otherwise."""
    people: list[list[str]] = [[]]
    listed = joined = False
    rest = ""
    for match in _WORD.finditer(sentence):
        token, end = match.group(), match.end()
        if token[0].isupper():
            people[-1].append(token)
            if (token.lower() in _TITLES or _initial(token)) and sentence[end : end + 1] == ".":
                end += 1  # "Dr. Jamie", "Jr. to"
            gap = sentence[end : end + 2]
            if gap[:1] in ("", " "):
                continue
            if gap == ", ":  # a list goes on, or a listed subject closes before its verb
                people.append([])
                listed = True
                continue
            return None  # other punctuation: an address, a heading, a quote
        if not people[-1] and not any(people):
            return None  # opens with a lowercase word: no named subject
        if token in _JOINERS:
            if people[-1]:
                people.append([])
            joined = True
            continue
        if not token[0].islower():
            return None  # a number or a mark before any verb
        rest = sentence[match.start() :]
        break
    else:
        return None  # capitals to the end: a title or a heading, no verb
    people = [p for p in people if p]
    words = sum(len(p) for p in people)
    if listed and not (joined and all(len(p) >= 2 for p in people)):
        return None  # commas without a closing "and": an address or a list of things
    if words + (len(people) - 1) < 2:
        return None  # one capital only opens the sentence
    return people, rest


# What a statement denies: the words after a negation, to the end of its
# clause ("has no experience in education or teaching, …", "…, not Aidan
# Mooris"). "not only" denies nothing. Chinese 不 and 没 alone open many words
# that deny nothing (不错, 不同, 没事儿), so only the compounds that deny are
# listed; there a clause ends at ，。；！？.
_NEGATION = re.compile(
    r"\b(?:not(?! only)|never|no|none|neither|nor|nothing|nobody|unable to|cannot|no longer"
    r"|\w+n't|rather than|instead of)\b"
    r"|而不是|不是|并非|并不|并没有|没有|从未|从不|从没|未曾|不再|无法|不能|不会",
    re.IGNORECASE,
)
_CLAUSE_END = re.compile(r"[.;:!?,，。；：！？]|\b(?:but|instead|while|whereas)\b|但是|但|而是")


def denied(text: str) -> tuple[str, ...]:
    """What ``text`` denies, one span per negation ("" when the clause ends there:
    "…, while Ryan Kleist does not."); empty when it denies nothing."""
    text = text[:MAX_QUERY_CHARS]
    spans: list[str] = []
    for match in _NEGATION.finditer(text):
        rest = text[match.end() :]
        end = _CLAUSE_END.search(rest)
        spans.append((rest[: end.start()] if end else rest).strip())
    return tuple(spans)
