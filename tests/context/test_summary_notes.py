"""Notes a summary carries from outside the transcript describe the present, not history."""

from __future__ import annotations

from kenning.context.compact import NOTES_MARK, framed, summary_body


def test_notes_ride_inside_the_frame_and_are_not_fed_to_the_next_summary() -> None:
    text = framed("## Goal\nship it", first_seq=3, last_seq=9, cycle=1, notes=["- df: dict, 1 KiB"])
    assert NOTES_MARK in text and "- df: dict, 1 KiB" in text
    assert text.index("ship it") < text.index("- df: dict") < text.index("[END OF CONTEXT")
    assert summary_body(text) == "## Goal\nship it"
    plain = framed("body", first_seq=1, last_seq=2, cycle=1)
    assert NOTES_MARK not in plain and summary_body(plain) == "body"
