"""Token estimates: honest for Chinese and English, corrected by the provider's usage."""

from __future__ import annotations

from kenning.context.tokens import (
    MESSAGE_OVERHEAD,
    Calibration,
    EstimatingCounter,
    entry_tokens,
    estimate_tokens,
    message_tokens,
)
from kenning.models.types import ChatMessage, ToolCall


def test_chinese_costs_about_a_token_a_character_english_about_a_word() -> None:
    chinese = "以后所有的代码注释都用中文写，回复时请务必先给结论再给细节。"
    assert 0.9 * len(chinese) <= estimate_tokens(chinese) <= 1.1 * len(chinese)
    english = "The quick brown fox jumps over the lazy dog near the river bank"
    words = len(english.split())
    assert words <= estimate_tokens(english) <= 1.3 * words
    # the old four-characters-a-token rule would count the Chinese at a quarter
    assert estimate_tokens(chinese) > 3 * (len(chinese) // 4)


def test_code_numbers_and_hashes_cost_more_than_prose_of_the_same_length() -> None:
    prose = "this is a plain sentence about the weather in the mountains"
    code = "def f(x):\n    return {'a': x[0], 'b': x[1:]}  # ok"
    digits = "1234567890" * 6
    assert estimate_tokens(code) > estimate_tokens(prose[: len(code)])
    assert estimate_tokens(digits) == 20  # groups of three digits


def test_estimates_are_deterministic_and_never_zero_for_text() -> None:
    assert estimate_tokens("") == 0
    assert estimate_tokens(" ") == 1
    assert estimate_tokens("😀") >= 1
    text = "mixed 文本 with ünïcödé and 😀 emoji"
    assert estimate_tokens(text) == estimate_tokens(text)


def test_a_message_counts_its_tool_calls_and_framing() -> None:
    counter = EstimatingCounter()
    call = ToolCall("c1", "read_file", '{"path": "src/app.py"}')
    bare = message_tokens(ChatMessage.assistant("Reading it."), counter)
    with_call = message_tokens(ChatMessage.assistant("Reading it.", [call]), counter)
    assert with_call > bare + MESSAGE_OVERHEAD


def test_reported_output_tokens_are_used_unless_they_include_hidden_reasoning() -> None:
    counter = EstimatingCounter()
    answer = ChatMessage.assistant("A short answer of some length, written plainly.")
    estimate = message_tokens(answer, counter)
    assert entry_tokens(answer, 9, counter, 1.0) == 9 + MESSAGE_OVERHEAD
    # 5,000 output tokens for one line: reasoning tokens, never sent back
    assert entry_tokens(answer, 5_000, counter, 1.0) == estimate
    user = ChatMessage.user("hello there")
    assert entry_tokens(user, None, counter, 2.0) == 2 * message_tokens(user, counter)


def test_calibration_moves_toward_reported_usage_and_stays_clamped() -> None:
    cal = Calibration()
    cal.observe(1_000, 1_500)
    assert cal.factor == 1.25
    cal.observe(1_000, 1_500)
    assert 1.3 < cal.factor < 1.5
    cal.observe(100, 10_000)  # too small a prompt to learn from
    assert cal.factor < 1.5
    cal.observe(1_000, 100_000)
    assert cal.factor <= cal.high
    cal.at_least(9.0)
    assert cal.factor == cal.high


def test_one_counter_for_the_context_search_skills_and_the_scripted_model() -> None:
    from kenning import tokens
    from kenning.search import chunks
    from kenning.skills import index
    from kenning.testing import ScriptedModel

    assert estimate_tokens is tokens.estimate_tokens
    assert chunks.estimate_tokens is tokens.estimate_tokens
    assert index.estimate_tokens is tokens.estimate_tokens
    # The scripted model reports usage with the same counter: a 40-letter word
    # is 7 tokens, not the 10 that "four characters a token" would give.
    import asyncio

    model = ScriptedModel(["abcd" * 10])
    response = asyncio.run(model.request([ChatMessage.user("部署数据库")]))
    assert response.usage.output_tokens == 7
    assert response.usage.input_tokens == 5
