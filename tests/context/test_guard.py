"""The guard: identifiers and rules selected by rule, checked, retried, or carried verbatim."""

from __future__ import annotations

import pytest

from kenning.context import guard
from kenning.context.guard import Cooldown, Fallback, Requirements, check, fallback_summary
from kenning.models.types import ChatMessage, ToolCall


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("deploy a1b2c3d4e5f6 now", ["a1b2c3d4e5f6"]),
        ("id 550e8400-e29b-41d4-a716-446655440000.", ["550e8400-e29b-41d4-a716-446655440000"]),
        ("see https://ci.example.com/runs/42?x=1.", ["https://ci.example.com/runs/42?x=1"]),
        (
            "edit /etc/nginx/nginx.conf and src/app/main.py.",
            ["/etc/nginx/nginx.conf", "src/app/main.py"],
        ),
        ("order 4188293 of 1,048,576 bytes", ["4188293", "1,048,576"]),
        ("PAY-4821 and PR #4521", ["PAY-4821", "#4521"]),
        ("python 3.11.4 on 10.0.0.12", ["3.11.4", "10.0.0.12"]),
        ("call `reconcile_ledger` with OPENAI_API_KEY", ["reconcile_ledger", "OPENAI_API_KEY"]),
        ('the branch "feature/login-v2", not "done"', ["feature/login-v2"]),
        ("把 「部署脚本」 放到 ~/bin/deploy.sh", ["部署脚本", "~/bin/deploy.sh"]),
        ("ops@acme.io", ["ops@acme.io"]),
    ],
)
def test_identifiers_are_selected_by_rule(text: str, expected: list[str]) -> None:
    assert guard.extract_identifiers(text) == expected


def test_ordinary_words_dates_and_fractions_are_not_identifiers() -> None:
    text = "and/or 1/2 on 2024/01/02, the facade of a decade, port 8080, year 2024"
    assert guard.extract_identifiers(text) == []


def test_tool_arguments_count_but_long_contents_and_tool_output_do_not() -> None:
    call = ToolCall("c", "write_file", '{"path": "notes.txt", "content": "' + "X_Y " * 200 + '"}')
    assert guard.conversation_identifiers(ChatMessage.assistant("", [call])) == ["notes.txt"]
    output = ChatMessage.tool("c", "shell", "commit deadbeef1234 in /srv/app")
    assert guard.conversation_identifiers(output) == []


def test_rules_are_found_in_english_and_chinese() -> None:
    assert guard.rule_statements("From now on, always answer in British English.")
    assert guard.rule_statements("以后所有提交信息都用中文写。")
    assert guard.rule_statements("回复时请务必先给结论。")
    assert not guard.rule_statements("What is the weather like?")


def test_check_names_a_dropped_identifier_a_dropped_rule_and_a_missing_ask() -> None:
    needs = Requirements(
        identifiers=["a1b2c3d4e5f6", "src/app.py"],
        rules=["Never push directly to main; open a pull request."],
        latest_ask="Now fix the flaky test in test_auth.py please",
    )
    good = (
        "## Constraints and user rules\n- never push directly to main, open a pull request\n"
        "## Pending user asks\n- fix the flaky test in test_auth.py\n"
        "## Exact identifiers\n- a1b2c3d4e5f6\n- src/app.py"
    )
    assert check(good, needs).ok
    verdict = check(good.replace("- a1b2c3d4e5f6\n", "").replace("never push", "x"), needs)
    assert verdict.missing_identifiers == ("a1b2c3d4e5f6",)
    assert not verdict.ok
    assert "a1b2c3d4e5f6" in verdict.describe(needs.latest_ask)
    assert check("## Goal\n- something else", needs).ask_missing
    assert check("   ", needs).empty


def test_an_identifier_counts_only_verbatim() -> None:
    needs = Requirements(identifiers=["4188293"])
    assert not check("order 4,188,293", needs).ok


def test_fallback_carries_every_identifier_rule_and_the_latest_ask_verbatim() -> None:
    needs = Requirements(
        identifiers=[f"id-{i:04d}-ab12cd34" for i in range(40)],
        rules=["Always use tabs.", "以后所有提交信息都用中文写。"],
        latest_ask="Deploy build 7741 to staging",
        asks=["Check the logs", "Deploy build 7741 to staging"],
    )
    parts = Fallback(goal="Ship the release", actions=('shell(command="make") (#3)',))
    text = fallback_summary(needs, parts)
    assert check(text, needs).ok
    assert "Deploy build 7741 to staging" in text and "Check the logs" in text
    assert "## Completed actions" in text and "Ship the release" in text


def test_fallback_with_a_draft_appends_only_what_the_draft_missed() -> None:
    needs = Requirements(identifiers=["a1b2c3d4e5f6", "src/app.py"], latest_ask="go on")
    draft = "## Goal\n- go on\n## Exact identifiers\n- src/app.py"
    text = fallback_summary(needs, Fallback(), draft)
    assert text.startswith(draft)
    assert text.count("src/app.py") == 1 and "a1b2c3d4e5f6" in text
    assert check(text, needs).ok


def test_prioritised_keeps_earlier_groups_and_the_newest_of_a_group_over_the_limit() -> None:
    kept = guard.prioritised([["p1", "p2"], ["u1", "u2", "u3"], ["o1"]], 4)
    assert kept == ["p1", "p2", "u2", "u3"]


def test_cooldown_grows_from_60_to_300_to_900_and_resets_on_success() -> None:
    cool = Cooldown(60, 900)
    assert cool.ready(0)
    assert [cool.fail(0), cool.fail(0), cool.fail(0), cool.fail(0)] == [60, 300, 900, 900]
    assert not cool.ready(899) and cool.ready(900) and cool.remaining(450) == 450
    cool.succeed()
    assert cool.ready(0) and cool.fail(10) == 60
