"""Newer wins: a later message that says nearly the same outranks the earlier one."""

from __future__ import annotations

import numpy as np

from kenning.archive.store import Archive, Message
from kenning.search import supersede as sup
from kenning.search.engine import SearchEngine
from kenning.search.fusion import RankParams
from kenning.storage.text import query_terms
from kenning.testing import FakeEmbedder

DAY = 86_400.0


def _unit(*rows: list[float]) -> np.ndarray:
    m = np.array(rows, dtype=np.float32)
    return m / np.linalg.norm(m, axis=1, keepdims=True)


def test_a_correction_is_lifted_just_above_what_it_supersedes() -> None:
    score = np.array([1.0, 0.9, 0.5])
    created = np.array([0.0, 7200.0, 3600.0])  # the best hit is the oldest
    vectors = _unit([1, 0.05, 0], [0, 0, 1], [1, 0, 0.05])  # items 0 and 2 say the same
    params = RankParams(supersede_margin=0.6)
    new, newer = sup.supersede(score, score, created, vectors, params)
    assert new[2] > 1.0 and new[1] == 0.9  # the unrelated hit keeps its score
    assert new[2] - 1.0 < 1e-9  # just above, not inflated past others
    assert newer.tolist() == [2, -1, -1]  # item 0 is superseded by item 2
    assert new[0] == 1.0 * params.supersede_stale  # and ranks a little lower, as stale


def test_a_superseded_statement_falls_below_the_other_current_ones() -> None:
    # 0 and 1 both answer the query; 0 is corrected by 2, 1 by 3 (which
    # scores lowest of all). Both corrections must end above both stale facts:
    # lifting each just above what it corrects leaves 3 under 0.
    score = np.array([1.0, 0.95, 0.5, 0.4])
    created = np.array([0.0, 1.0, 30 * DAY, 30 * DAY + 60])
    relevance = np.array([0.9, 0.9, 0.88, 0.88])
    vectors = _at(0.0, 60.0, 5.0, 65.0)  # each correction near what it corrects only
    new, newer = sup.supersede(score, relevance, created, vectors, RankParams())
    assert newer.tolist() == [2, 3, -1, -1]
    assert np.argsort(-new).tolist()[:2] == [2, 3]
    keep = RankParams(supersede_stale=1.0)
    new, _ = sup.supersede(score, relevance, created, vectors, keep)
    assert np.argsort(-new).tolist() == [2, 0, 3, 1]  # without it: a stale fact above


def test_a_chain_of_corrections_puts_the_newest_on_top() -> None:
    score = np.array([1.0, 0.95, 0.9])
    created = np.array([0.0, 3600.0, 7200.0])
    vectors = _unit([1, 0.02], [1, 0.03], [1, 0.01])
    relevance = np.array([0.9, 0.89, 0.88])  # cosines to the query: equally good answers
    new, newer = sup.supersede(score, relevance, created, vectors, RankParams())
    assert np.argsort(-new).tolist() == [2, 1, 0]
    assert newer.tolist() == [2, 2, -1]


def test_a_weaker_answer_or_a_different_statement_does_not_supersede() -> None:
    created = np.array([0.0, 3600.0])
    same = _unit([1, 0.05], [1, 0])
    far = _unit([1, 0], [0.5, 1])
    weak = np.array([1.0, 0.5])  # far less relevant to the query: not an equal answer
    new, newer = sup.supersede(weak, weak, created, same, RankParams())
    assert new.tolist() == [1.0, 0.5] and newer.tolist() == [-1, -1]
    close = np.array([1.0, 0.95])
    assert sup.supersede(close, close, created, far, RankParams())[1].tolist() == [-1, -1]
    off = RankParams(supersede_cos=1.0)
    assert sup.supersede(close, close, created, same, off)[1].tolist() == [-1, -1]


def test_a_correction_supersedes_the_statement_it_is_nearest_to() -> None:
    # two facts about the same people, then a correction of the first that
    # also resembles the second: only the one it is nearest to is superseded
    def at(degrees: float) -> list[float]:
        return [float(np.cos(np.radians(degrees))), float(np.sin(np.radians(degrees)))]

    vectors = _unit(at(0.0), at(-17.7), at(8.1))  # cosines: new-first .99, new-second .90
    score = np.array([1.0, 0.95, 0.9])
    created = np.array([0.0, 1.0, 3600.0])
    new, newer = sup.supersede(score, score, created, vectors, RankParams(supersede_margin=0.2))
    assert newer.tolist() == [2, -1, -1]
    assert new[2] > new[0] and new[1] == 0.95
    # within supersede_nearest of the nearest, both are corrected
    both = RankParams(supersede_margin=0.2, supersede_nearest=0.1, supersede_closest=0.1)
    assert sup.supersede(score, score, created, vectors, both)[1].tolist() == [2, 2, -1]


def test_an_older_message_never_supersedes_a_newer_one() -> None:
    score = np.array([1.0, 0.95])
    created = np.array([3600.0, 0.0])  # the better hit is already the newer one
    vectors = _unit([1, 0.05], [1, 0])
    params = RankParams()
    new, newer = sup.supersede(score, score, created, vectors, params)
    assert new.tolist() == [1.0, 0.95 * params.supersede_stale] and newer.tolist() == [-1, 0]


def test_messages_without_vectors_never_match() -> None:
    vectors = np.zeros((2, 3), dtype=np.float32)
    score = np.array([1.0, 0.99])
    _, newer = sup.supersede(score, score, np.array([0.0, 3600.0]), vectors, RankParams())
    assert newer.tolist() == [-1, -1]


def test_statements_made_together_are_a_burst_not_corrections() -> None:
    vectors = _unit([1, 0.05], [1, 0])
    score = np.array([1.0, 0.95])
    together = np.array([0.0, 5.0])  # a list of facts typed in one go
    assert sup.supersede(score, score, together, vectors, RankParams())[1].tolist() == [
        -1,
        -1,
    ]
    apart = np.array([0.0, 3600.0])
    assert sup.supersede(score, score, apart, vectors, RankParams())[1].tolist() == [1, -1]


def _engine(archive: Archive, now: float) -> SearchEngine:
    return SearchEngine(archive, FakeEmbedder(), params=RankParams(), clock=lambda: now)


def test_a_correction_outranks_the_fact_it_corrects_in_the_same_session(archive: Archive) -> None:
    t0 = 1_700_000_000.0
    sid = archive.start_session("cli", started_at=t0)
    old = archive.append(
        sid,
        Message(
            "user",
            "The staging database for the billing service runs on port 5432 on db-7.",
            created_at=t0,
        ),
    )
    archive.append(sid, Message("user", "Deploys freeze on Fridays.", created_at=t0 + 1))
    new = archive.append(
        sid,
        Message(
            "user",
            "The staging database for the billing service runs on port 5433 on db-7.",
            created_at=t0 + DAY,
        ),
    )
    hits = _engine(archive, t0 + 2 * DAY).search(
        "which port does the staging database use", kinds=("message",)
    )
    ids = [h.id for h in hits.hits]
    assert ids.index(new.id) < ids.index(old.id)
    stale = next(h for h in hits.hits if h.id == old.id)
    assert stale.superseded_by == new.id  # still findable, and says what replaced it
    assert stale.to_dict()["superseded_by"] == new.id
    assert next(h for h in hits.hits if h.id == new.id).superseded_by is None


def test_a_year_old_fact_and_its_correction_in_another_session(archive: Archive) -> None:
    t0 = 1_700_000_000.0
    first = archive.start_session("cli", started_at=t0)
    old = archive.append(
        first,
        Message("user", "My favourite editor for Python work on the laptop is vim.", created_at=t0),
    )
    later = archive.start_session("cli", started_at=t0 + 365 * DAY)
    new = archive.append(
        later,
        Message(
            "user",
            "My favourite editor for Python work on the laptop is helix.",
            created_at=t0 + 365 * DAY,
        ),
    )
    hits = _engine(archive, t0 + 366 * DAY).search("favourite editor", kinds=("message",))
    assert [h.id for h in hits.hits][:2] == [new.id, old.id]


def test_unrelated_older_hits_keep_their_place(archive: Archive) -> None:
    t0 = 1_700_000_000.0
    sid = archive.start_session("cli", started_at=t0)
    best = archive.append(sid, Message("user", "The kiwi smoothie needs two kiwis.", created_at=t0))
    archive.append(sid, Message("user", "We visited a kiwi farm in spring.", created_at=t0 + DAY))
    hits = _engine(archive, t0 + 2 * DAY).search("kiwi smoothie", kinds=("message",))
    assert hits.hits[0].id == best.id and all(h.superseded_by is None for h in hits.hits)


def _words(text: str) -> sup.Words:
    return sup.words_of(text)


def _query(text: str) -> frozenset[str]:
    return frozenset(query_terms(text))


def test_a_reply_on_the_same_topic_is_not_the_same_statement() -> None:
    params = RankParams()
    query = _query("Which port does the staging database use?")
    fact = _words("The staging database runs on port 5432.")
    correction = _words("The staging database now runs on port 5433.")
    chit_chat = _words("Wow, that sounds like a great setup, congrats!")
    assert sup.same_statement(fact, correction, query, params)
    assert not sup.same_statement(fact, chit_chat, query, params)
    # a rewording that drops the words the question asked about is another statement
    assert not sup.same_statement(fact, _words("The staging box moved."), query, params)


def test_session_search_marks_the_superseded_message(archive: Archive) -> None:
    from kenning.archive.session_search import SessionSearch

    t0 = 1_700_000_000.0
    sid = archive.start_session("cli", started_at=t0)
    old = archive.append(
        sid,
        Message(
            "user", "The staging database for billing runs on port 5432 on db-7.", created_at=t0
        ),
    )
    later = archive.start_session("cli", started_at=t0 + DAY)
    new = archive.append(
        later,
        Message(
            "user",
            "The staging database for billing runs on port 5433 on db-7.",
            created_at=t0 + DAY,
        ),
    )
    engine = _engine(archive, t0 + 2 * DAY)
    tool = SessionSearch(archive, lambda: engine)
    found = tool({"query": "staging database port"})
    views = {m["message_id"]: m for s in found["sessions"] for m in s["messages"]}
    assert views[old.id]["superseded_by"]["message_id"] == new.id
    assert "superseded_by" not in views[new.id]
    assert "later message is the current one" in found["superseded"]
    assert found["sessions"][0]["session_id"] == later


def test_a_correction_that_adds_its_reason_still_supersedes() -> None:
    params = RankParams()
    query = _query("Which prize did Lorae Jonis win in 2021?")
    old = _words("Lorae Jonis won the National Travel Writing Prize in 2021.")
    new = _words(
        "Lorae Jonis won no National Travel Writing Prize in 2021; instead she was "
        "nominated twice for the regional essay prize, spent the year teaching creative "
        "nonfiction workshops in Lisbon and finished her third book about river towns, "
        "their bridges and ferries."
    )
    union, shared = old.terms | new.terms, old.terms & new.terms
    assert len(shared) < params.supersede_jaccard * len(union)  # Jaccard alone would miss it
    assert sup.same_statement(old, new, query, params)
    # the share kept needs enough words: two shared words in a long reply are not enough
    short = _words("Travel plans 2021.")
    assert len(short.terms & new.terms) < params.supersede_shared
    assert len(short.terms & new.terms) < params.supersede_jaccard * len(short.terms | new.terms)
    assert not sup.same_statement(short, new, query, params)


def test_a_correction_that_keeps_only_the_subject_still_supersedes() -> None:
    params = RankParams()
    query = _query("Which award did Lorae Jonis receive in 2021?")
    old = _words("Lorae Jonis received the National Travel Writing Award in 2021.")
    new = _words(
        "Lorae Jonis did not receive any awards in 2021; instead, she was nominated "
        "for the International Photography Prize but did not win."
    )
    shared = old.terms & new.terms
    assert len(shared) < params.supersede_jaccard * len(old.terms | new.terms)
    assert len(shared) < params.supersede_contain * len(old.terms)
    assert sup.same_statement(old, new, query, params)
    # the name alone is not enough: the newer one must answer what was asked of her
    other = _words("Lorae Jonis adopted a rescue greyhound in 2023.")
    assert not sup.same_statement(old, other, query, params)


def test_two_things_said_about_the_same_people_are_not_one_statement() -> None:
    params = RankParams()
    query = _query("In what year did Bryen Forster and Austen Moralez first meet?")
    met = _words("Bryen Forster and Austen Moralez met at a networking event in 2018.")
    languages = _words("Bryen Forster is fluent in Spanish, while Austen Moralez speaks English.")
    # the four names alone make the Jaccard: without them the two share nothing
    assert len(met.terms & languages.terms) >= params.supersede_jaccard * len(
        met.terms | languages.terms
    )
    assert not sup.same_statement(met, languages, query, params)
    # a statement that matched the query only by its subject's name is not
    # replaced by whatever is said of that person later
    book = _words("Anne Glass published a book about marine life.")
    portrait = _words("Anne Glass is known for portrait photography.")
    assert not sup.same_statement(book, portrait, _query("Who is Anne Glass?"), params)


def test_words_are_compared_as_the_index_stems_them(archive: Archive) -> None:
    assert archive.storage.index.stems(["awards", "received", "Rodaniz's", "部署"]) == [
        "award",
        "receiv",
        "rodaniz",
        "部署",
    ]


def test_a_correction_that_says_the_rest_anew_is_one_statement_without_the_cover() -> None:
    # the correction keeps the subject and the values, not the query's word "fluent"
    params = RankParams()
    query = _query("Which languages is Shelby Dennix fluent in?")
    old = _words("Shelby Dennix is fluent in both English and Spanish.")
    new = _words("Shelby Dennix only speaks French and German and has never learned Spanish.")
    assert sup.match(old, new, query, params) == sup.Match(same=True, covered=False, denial=True)
    assert not sup.same_statement(old, new, query, params)
    assert sup.same_statement(old, old, query, params)


def _at(*degrees: float) -> np.ndarray:
    return _unit(*([float(np.cos(np.radians(d))), float(np.sin(np.radians(d)))] for d in degrees))


def test_an_uncovered_correction_supersedes_only_the_statement_it_is_closest_to() -> None:
    # 0: the answer; 1: another earlier fact about the same people; 2: a later
    # statement that drops the query's words. It corrects 0 only when 0 is the
    # earlier statement it is closest to (whatever 1 scores for the query) and
    # it is nearly as relevant to the query.
    score = np.array([1.0, 0.3, 0.5])
    created = np.array([0.0, 1.0, 30 * DAY])
    relevance = np.array([0.9, 0.8, 0.88])
    uncovered = lambda pairs: [sup.Match(True, False)] * len(pairs)  # noqa: E731
    covered = lambda pairs: [sup.SAME] * len(pairs)  # noqa: E731
    params = RankParams(supersede_margin=0.2)
    answer_closest = _at(10.0, -20.0, 0.0)  # cosines to 2: .985 and .940
    new, newer = sup.supersede(score, relevance, created, answer_closest, params, uncovered)
    assert newer.tolist() == [2, -1, -1] and new[2] > new[0]
    less_relevant = np.array([0.9, 0.8, 0.84])  # beyond supersede_margin_uncovered
    _, newer = sup.supersede(score, less_relevant, created, answer_closest, params, uncovered)
    assert newer.tolist() == [-1, -1, -1]
    # 2 is a correction of 1, which it is closer to: the answer keeps its place
    other_closest = _at(20.0, -10.0, 0.0)
    for words in (uncovered, covered):
        new, newer = sup.supersede(score, relevance, created, other_closest, params, words)
        assert newer.tolist() == [-1, 2, -1] and new[0] == 1.0
    # keeping the query's words, it may be a little farther (supersede_closest)
    almost = _at(12.0, -10.0, 0.0)  # cosines .978 and .985
    assert sup.supersede(score, relevance, created, almost, params, covered)[1].tolist() == [
        2,
        2,
        -1,
    ]
    assert sup.supersede(score, relevance, created, almost, params, uncovered)[1].tolist() == [
        -1,
        2,
        -1,
    ]


def test_the_closest_earlier_statement_counts_whatever_its_words() -> None:
    # 2 is a later statement about other things said of the same people: its
    # words match the answer 0 (they share names and the query's words) and not
    # the fact 1 it is closest to, which it really corrects. The answer stays.
    score = np.array([1.0, 0.3, 0.5])
    created = np.array([0.0, 1.0, 30 * DAY])
    relevance = np.array([0.9, 0.8, 0.88])

    def words(pairs: list[tuple[int, int]]) -> list[sup.Match]:
        return [sup.SAME if i == 0 else sup.NOT_SAME for i, _ in pairs]

    vectors = _at(20.0, -10.0, 0.0)  # cosines to 2: .940 and .985
    params = RankParams(supersede_margin=0.2)
    new, newer = sup.supersede(score, relevance, created, vectors, params, words)
    assert newer.tolist() == [-1, -1, -1] and new.tolist() == score.tolist()


def test_a_title_inside_the_subject_keeps_the_query_words_apart() -> None:
    # "Dr." split the sentence, so only "Jamie Griffon" was a name and "Brenda
    # Hawking" counted as the query's words: anything else said of the two
    # looked like it kept them, and superseded the answer
    params = RankParams()
    query = _query("Which council counts both Brenda Hawking and Dr. Jamie Griffon as members?")
    council = _words(
        "Brenda Hawking and Dr. Jamie Griffon are both members of the Science Council."
    )
    project = _words(
        "Brenda Hawking and Dr. Jamie Griffon collaborated on a project developing "
        "sustainable energy solutions for urban environments."
    )
    assert not sup.match(council, project, query, params).covered
    assert not sup.same_statement(council, project, query, params)


def test_a_correction_about_one_of_a_group_is_compared_with_what_was_said_of_them() -> None:
    params = RankParams()
    query = _query("What organization are Jaxon Kellan, Brion Flenning, and Cristina Morgane in?")
    group = _words(
        "All three, Jaxon Kellan, Brion Flenning, and Cristina Morgane, are members of the "
        "International Society for Environmental Preservation."
    )
    one = _words(
        "Jaxon Kellan is not a member of the International Society for Environmental "
        "Preservation; he is instead a member of the World Photographers Guild."
    )
    assert sup.match(group, one, query, params) == sup.Match(True, True, denial=True)
    # someone outside the group says nothing of it
    outsider = _words("Anne Glass is not a member of the International Society for Preservation.")
    assert not sup.match(group, outsider, query, params).same
    # a group statement cut to one member: "Jaston Glace attended the symposium in 2022"
    attended = _words(
        "All four, Jaston Glace, Jorlan Matthis, Josen Sota, and Anya Ternor, attended the "
        "World Cultural Symposium in 2022."
    )
    absent = _words(
        "In 2022, Jaston Glace was unable to attend the World Cultural Symposium due to a "
        "scheduling conflict and instead joined the others at the International Arts Festival."
    )
    event = _query(
        "At which event did Jaston Glace, Jorlan Matthis, Josen Sota, and Anya Ternor meet?"
    )
    assert sup.match(attended, absent, event, params).same
    # Chinese has no cased names: the shared words alone make it one statement
    zh_group = _words("张伟、李娜和王强都是国际环境保护协会的会员。")
    zh_one = _words("王强不是国际环境保护协会的会员，而是世界摄影师协会的会员。")
    zh_query = _query("张伟、李娜和王强都是哪个组织的会员？")
    assert sup.match(zh_group, zh_one, zh_query, params) == sup.Match(True, False, denial=True)


def test_saying_the_same_of_another_person_the_query_offers_answers_it_anew() -> None:
    params = RankParams()
    travin = _words("Travin Gonsalez is known for his volunteer work at animal shelters.")
    jasen = _words("Jasen Yung is known for his volunteer work at animal shelters.")
    choice = _query(
        "Which person is known for volunteer work at animal shelters, Travin Gonsalez, "
        "Jasen Yung, or Rylan Burnes?"
    )
    assert sup.same_statement(travin, jasen, choice, params)
    # asked about one of them, two people doing the same thing are two statements
    assert not sup.same_statement(
        travin, jasen, _query("What is Travin Gonsalez known for?"), params
    )
    # and another predicate is another statement, whoever the query names
    hiking = _words("Jasen Yung often goes hiking in the Alps with friends.")
    assert not sup.same_statement(travin, hiking, choice, params)
    # Chinese: the names are words like the rest, so the choice is answered anew too
    zh_old = _words("张伟以在动物收容所做志愿者而闻名。")
    zh_new = _words("李娜以在动物收容所做志愿者而闻名。")
    zh_choice = _query("张伟、李娜和王强中，谁以在动物收容所做志愿者而闻名？")
    assert sup.same_statement(zh_old, zh_new, zh_choice, params)


def test_a_denial_of_what_the_older_one_said_is_marked() -> None:
    params = RankParams()
    query = _query("In which area might Rachelle Myra have a background?")
    teaching = _words("Rachelle Myra may have a background in education or teaching.")
    denial = _words(
        "Rachelle Myra has a background exclusively in environmental initiatives and has "
        "no experience in education or teaching."
    )
    elsewhere = _words("Rachelle Myra has a background in education and has no interest in music.")
    assert sup.match(teaching, denial, query, params).denial
    assert sup.match(teaching, elsewhere, query, params) == sup.Match(True, True, denial=False)
    zh_query = _query("王强2021年获得了什么奖？")
    zh_old = _words("王强获得了2021年的全国旅行写作奖。")
    zh_denial = _words("王强2021年没有获得全国旅行写作奖，而是获得了国际摄影奖的提名。")
    assert sup.match(zh_old, zh_denial, zh_query, params) == sup.Match(
        True, True, denial=True, whole=True
    )
    assert not sup.match(zh_old, zh_old, zh_query, params).denial


def test_a_denial_may_be_a_little_less_like_the_query() -> None:
    # a correction said as a denial keeps fewer of the query's words: its
    # cosine to the query may fall supersede_denial_margin further
    score = np.array([1.0, 0.5])
    created = np.array([0.0, 30 * DAY])
    vectors = _unit([1, 0.05], [1, 0])
    params = RankParams()

    def newer(said: sup.Match, relevance: np.ndarray) -> list[int]:
        words = lambda pairs: [said] * len(pairs)  # noqa: E731
        return sup.supersede(score, relevance, created, vectors, params, words)[1].tolist()

    half = params.supersede_denial_margin / 2
    covered = np.array([0.9, 0.9 - params.supersede_margin - half])
    assert newer(sup.Match(True, True), covered) == [-1, -1]
    assert newer(sup.Match(True, True, denial=True), covered) == [1, -1]
    uncovered = np.array([0.9, 0.9 - params.supersede_margin_uncovered - half])
    assert newer(sup.Match(True, False), uncovered) == [-1, -1]
    assert newer(sup.Match(True, False, denial=True), uncovered) == [1, -1]


def test_a_query_asking_only_who_is_answered_anew_by_the_same_kind_of_statement() -> None:
    params = RankParams()
    query = _query("What is Robyn Tylor's profession?")
    designer = _words("Robyn Tylor is a well-known graphic designer.")
    engineer = _words("Robyn Tylor is a renowned software engineer.")
    assert sup.same_statement(designer, engineer, query, params)
    works = _words("Courtney Morlan works as a graphic designer at a creative agency.")
    vet = _words("Courtney Morlan works as a veterinarian at a local animal clinic.")
    assert sup.same_statement(works, vet, _query("What is Courtney Morlan's profession?"), params)
    # a statement that goes on otherwise is about something else
    exhibited = _words("Robyn Tylor has exhibited artwork in several galleries.")
    assert not sup.same_statement(designer, exhibited, query, params)
    off = RankParams(supersede_frame=False)
    assert not sup.same_statement(designer, engineer, query, off)


def test_a_correction_of_one_half_of_the_answer_outranks_the_other_half() -> None:
    # "who is known for project management and in the same association as
    # Jeff Chalmers?": 0 answers the first half, 1 the second; 2 corrects 1.
    params = RankParams()
    query = _query(
        "Who is known for expertise in project management and is a member of the same "
        "professional association as Jeff Chalmers?"
    ) - {"jeff", "chalmers"}  # without the names it mentions, as ``rerank`` gives it
    manager = _words("Timothy Brigham is known for his expertise in project management.")
    member = _words(
        "Jeff Chalmers and Timothy Brigham are members of the same professional association."
    )
    not_member = _words(
        "Timothy Brigham is not a member of the same professional association as Jeff "
        "Chalmers; instead, Shane Fielder is."
    )
    assert sup.completes(manager, member, not_member, query, params)
    # the one fact that answers it all has no other half
    whole = _words(
        "Timothy Brigham, an expert in project management, is a member of the same "
        "professional association as Jeff Chalmers."
    )
    assert not sup.completes(whole, member, not_member, query, params)
    # nor do facts about other people, or when names are all a fact adds
    other = _words("Anne Glass is known for her expertise in project management.")
    assert not sup.completes(other, member, not_member, query, params)
    choice = _query("Who among Jeffren Chavon, Josen Lorn, and Jaston Jonson won a cooking prize?")
    won = _words("Jaston Jonson won a national cooking prize in 2021.")
    hosted = _words("Jaston Jonson once hosted a cooking show produced by Josen Lorn.")
    moved = _words(
        "Jeffren Chavon, not Jaston Jonson, hosted a cooking show produced by Josen Lorn."
    )
    mentioned = frozenset({"jeffren", "chavon", "josen", "lorn", "jaston", "jonson"})
    assert not sup.completes(won, hosted, moved, choice - mentioned, params)

    # ranked: 0 (the other half) first, 1 corrected by 2, which lands above 1
    # only; when 1 completes 0, the correction outranks both
    score = np.array([1.0, 0.9, 0.6])
    created = np.array([0.0, 1.0, 30 * DAY])
    relevance = np.array([0.9, 0.89, 0.88])
    vectors = _at(40.0, 0.0, 5.0)  # 2 is near 1, far from 0
    apart = lambda pairs: [sup.SAME if i == 1 else sup.NOT_SAME for i, _ in pairs]  # noqa: E731
    new, newer = sup.supersede(score, relevance, created, vectors, params, apart)
    assert newer.tolist() == [-1, 2, -1] and np.argsort(-new).tolist() == [0, 2, 1]
    halves = lambda triples: [k == 0 for k, _, _ in triples]  # noqa: E731
    new, newer = sup.supersede(score, relevance, created, vectors, params, apart, halves)
    assert newer.tolist() == [-1, 2, -1] and np.argsort(-new).tolist() == [2, 0, 1]
    assert new[0] == 1.0  # the other half is still true: not marked, not lowered
    off = RankParams(supersede_complement=0)
    assert not sup.completes(manager, member, not_member, query, off)


def test_a_correction_keeping_all_the_query_words_may_be_closer_to_another_fact() -> None:
    # 2 restates every query word 0 matched ("Davin Huylen…is now known for
    # incorporating sustainable ingredients…" for "Felina Patrin is known for
    # incorporating…") but, about its own subject, is closer to fact 1
    params = RankParams(supersede_margin=0.2)
    query = _query(
        "Who is known for incorporating sustainable ingredients in their recipes, inspired "
        "by Tessa Montclair's environmental advocacy?"
    )
    old = _words(
        "Felina Patrin is known for incorporating sustainable ingredients in her recipes, "
        "inspired by Tessa Montclair's environmental advocacy."
    )
    new = _words(
        "Davin Huylen, after being inspired by Tessa Montclair's environmental advocacy, "
        "shifted his focus from landscape photography to culinary arts and is now known for "
        "incorporating sustainable ingredients in his recipes."
    )
    assert sup.match(old, new, query, params).whole
    assert not sup.match(
        old, _words("Felina Patrin is known for her recipes."), query, params
    ).whole
    score = np.array([1.0, 0.3, 0.5])
    created = np.array([0.0, 1.0, 30 * DAY])
    relevance = np.array([0.9, 0.8, 0.88])
    vectors = _at(14.0, -5.0, 0.0)  # cosines to 2: .970 and .996
    said = sup.Match(True, True, whole=True)

    def words(pairs: list[tuple[int, int]]) -> list[sup.Match]:
        return [said if i == 0 else sup.NOT_SAME for i, _ in pairs]

    assert sup.supersede(score, relevance, created, vectors, params, words)[1].tolist() == [
        2,
        -1,
        -1,
    ]
    said = sup.Match(True, True)  # the query words kept, not all of them: only the closest
    assert sup.supersede(score, relevance, created, vectors, params, words)[1].tolist() == [
        -1,
        -1,
        -1,
    ]


def test_a_statement_about_the_same_people_corrects_what_was_said_of_them() -> None:
    # 0, the answer, is said of the two; 1, said of one of them, is closer to
    # the later 2 (it shares the expedition), but 2 is said of the two again:
    # it corrects what was said of them, not the fact about one of them
    texts = [
        "Orla Vesk and Tamsin Rood met during a chess tournament in Oslo.",
        "Orla Vesk has led glacier surveys in Iceland, some of them filmed by Tamsin Rood.",
        "Orla Vesk and Tamsin Rood first met while filming a glacier survey in Iceland.",
    ]
    said = [_words(t) for t in texts]

    def who(items: list[int]) -> list[frozenset[str]]:
        return [said[k].names for k in items]

    def words(pairs: list[tuple[int, int]]) -> list[sup.Match]:
        return [sup.SAME if i == 0 else sup.NOT_SAME for i, _ in pairs]

    assert said[0].names == said[2].names != said[1].names
    score = np.array([1.0, 0.3, 0.9])
    created = np.array([0.0, 1.0, 30 * DAY])
    relevance = np.array([0.9, 0.8, 0.88])
    vectors = _at(14.0, -5.0, 0.0)  # cosines to 2: .970 and .996
    params = RankParams(supersede_margin=0.2)
    parts = lambda t: [False] * len(t)  # noqa: E731
    new, newer = sup.supersede(score, relevance, created, vectors, params, words, parts, who)
    assert newer.tolist() == [2, -1, -1] and new[2] > new[0]
    # said of one of them only, the closer fact still decides
    alone = lambda items: [said[1].names if k == 2 else said[k].names for k in items]  # noqa: E731
    assert sup.supersede(score, relevance, created, vectors, params, words, parts, alone)[
        1
    ].tolist() == [-1, -1, -1]
    off = RankParams(supersede_margin=0.2, supersede_same_subject=False)
    assert sup.supersede(score, relevance, created, vectors, off, words, parts, who)[
        1
    ].tolist() == [-1, -1, -1]
