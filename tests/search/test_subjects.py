"""Who a statement is about and what it denies, read from its words (``search.subjects``)."""

from __future__ import annotations

from kenning.search.subjects import denied, named, names_in, subjects_of


def test_the_named_subject_opens_the_sentence_greetings_name_no_one() -> None:
    assert names_in("Lorae Jonis received the award.") == ["lorae", "jonis"]
    assert names_in("Bryen Forster and Austen Moralez co-founded a firm.") == [
        "bryen",
        "forster",
        "austen",
        "moralez",
    ]
    assert names_in("I went to Tokyo. Anne Glass is a photographer.") == ["anne", "glass"]
    # one capital only opens a sentence; addressing someone is not a subject
    for text in (
        "The staging database runs on port 5432.",
        "Hey John, I donated my old car to the shelter yesterday.",
        "Thanks, Melanie! It really mattered.",
        "Hey Mel! How are you doing?",
        "Hi Mel and John, good to see you.",
        "I met Anne Glass in Paris.",
        "In Danish, the title Grev means Count.",
    ):
        assert names_in(text) == [], text


def test_a_title_ends_no_sentence_and_belongs_to_the_name() -> None:
    # "Dr." once split the sentence: "Jamie Griffon" became a subject alone
    assert subjects_of("Brenda Hawking and Dr. Jamie Griffon are members of the council.") == (
        subjects_of("Brenda Hawking and Jamie Griffon are members of the council.")
    )
    assert names_in("Chrissa Benden and Jamis Willingston Jr. co-founded a hiking club.") == [
        "chrissa",
        "benden",
        "jamis",
        "willingston",
    ]
    assert names_in("J. R. Smith moved to Boston.") == ["j", "r", "smith"]


def test_a_listed_subject_and_one_after_a_short_lead_in() -> None:
    listed = subjects_of(
        "Anthony Berrin, Katherine Moonee, Angela Hurst, and Dr. Ronald Pahl all "
        "participated in the Global Educators Summit in 2023."
    )
    assert listed.group and listed.names == (
        "anthony", "berrin", "katherine", "moonee", "angela", "hurst", "ronald", "pahl",
    )  # fmt: skip
    apposed = subjects_of(
        "All three, Jaxon Kellan, Brion Flenning, and Cristina Morgane, are members of the "
        "International Society for Environmental Preservation."
    )
    assert apposed.group and len(apposed.names) == 6
    assert subjects_of("In 2022, Jaston Glace was unable to attend the symposium.").names == (
        "jaston",
        "glace",
    )
    # a list needs its closing "and", and full names: otherwise it is an address
    assert names_in("Anne Glass, Tom Reyes, Mira Holt went home.") == []
    assert not subjects_of("Lorae Jonis received the award.").group


def test_chinese_has_no_cased_names_so_its_words_decide() -> None:
    for text in ("张伟、李娜和王强都是国际环境保护协会的会员。", "王强不是协会的会员。"):
        assert subjects_of(text).names == () and not subjects_of(text).group


def test_what_a_statement_denies() -> None:
    assert denied(
        "Rachelle Myra has a background in environmental initiatives and has no "
        "experience in education or teaching."
    ) == ("experience in education or teaching",)
    assert denied("Jonas Atkin photographed Verena Stell, not Aidan Mooris, in Berlin.") == (
        "Aidan Mooris",
    )
    assert denied("Christian Sutter moved to Zürich instead of FC Baden.") == ("FC Baden",)
    assert denied("Timothy Bautaro studied design, while Ryan Kleist does not.") == ("",)
    # "not only … but also" adds, it denies nothing
    assert denied("Luin Morgath is not only a cartographer but also a linguist.") == ()
    assert denied("王强没有参加2022年的世界文化研讨会，而是去了国际艺术节。") == (
        "参加2022年的世界文化研讨会",
    )
    assert denied("王强从来没有学过西班牙语。") == ("学过西班牙语",)
    # 不 and 没 alone open words that deny nothing
    assert denied("这家店的咖啡不错，服务也不同凡响。") == ()
    assert denied("The staging database runs on port 5432.") == ()


def test_how_the_subjects_sentence_goes_on() -> None:
    # the function words the predicate opens with, else its first word
    assert subjects_of("Robyn Tylor is a well-known graphic designer.").frame == ("is", "a")
    assert subjects_of("Randy Torris is an accomplished designer.").frame == ("is", "a")
    assert subjects_of("Courtney Morlan works as a veterinarian.").frame == ("works",)
    assert subjects_of("Anne Glass published a book about marine life.").frame == ("published",)
    assert subjects_of("I moved. In 2022, Jaston Glace was unable to attend.").frame == ("was",)
    assert subjects_of("The staging database runs on port 5432.").frame == ()


def test_every_name_a_question_mentions() -> None:
    assert named("Who among Jeffren Chavon, Josen Lorn, and Dr. Jaston Jonson won in 2021?") == (
        "jeffren", "chavon", "josen", "lorn", "jaston", "jonson",
    )  # fmt: skip
    # the capital that opens a sentence is no name
    assert named("Which person joined the program with Jessa Lann? Then what?") == (
        "jessa",
        "lann",
    )
