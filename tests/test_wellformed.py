"""Lone surrogates found and repaired the way a UTF-8 decoder with errors="replace" would."""

from __future__ import annotations

import json

from kenning.wellformed import first_surrogate, repair, repair_data, repair_json


def test_repair_replaces_lone_surrogates_and_joins_pairs() -> None:
    assert repair("a\ud800b") == "a\ufffdb"
    assert repair("\udcff") == "\ufffd"  # an undecodable argv byte
    assert repair("\ud83d\ude00") == "\U0001f600"  # a pair that arrived as two code points
    text = "nothing to do"
    assert repair(text) is text
    assert first_surrogate("ab\udc80") == 2 and first_surrogate("ab") == -1


def test_repair_data_names_every_place() -> None:
    data = {"content": "x\ud800", "ops": [{"t": "ok"}, {"t": "\udfff"}], "k\ud800": 1, "n": 3}
    fixed, places = repair_data(data)
    assert fixed == {
        "content": "x\ufffd",
        "ops": [{"t": "ok"}, {"t": "\ufffd"}],
        "k\ufffd": 1,
        "n": 3,
    }
    assert places == ["content", "ops[1].t", "k\ufffd (key)"]
    clean = {"a": ["b", {"c": "d"}]}
    assert repair_data(clean)[0] is clean and repair_data(clean)[1] == []


def test_repair_json_reencodes_only_what_a_strict_parser_rejects() -> None:
    line = json.dumps({"q": "\ud800", "e": "\U0001f600"}) + "\n"  # ascii: "\\ud800", a pair
    fixed, places = repair_json(line)
    assert places == ["q"] and fixed.endswith("\n")
    assert json.loads(fixed) == {"q": "\ufffd", "e": "\U0001f600"}
    pair = json.dumps({"e": "\U0001f600"})
    assert repair_json(pair) == (pair, [])
    assert repair_json('{"broken": "\\ud800"') == ('{"broken": "\\ud800"', [])
    literal = json.dumps({"q": "\\ud800"})  # an escaped backslash: text, not an escape
    assert json.loads(repair_json(literal)[0]) == {"q": "\\ud800"}
