"""Query and index text: CJK bigrams, stopwords, and FTS queries that cannot break."""

from __future__ import annotations

import sqlite3

from hypothesis import given, settings
from hypothesis import strategies as st

from kenning.storage.text import (
    baseline_fts_query,
    cjk_index_text,
    fts_or_query,
    query_terms,
)


def test_cjk_runs_become_bigrams_plus_last_char() -> None:
    assert cjk_index_text("部署到生产") == " 部署 署到 到生 生产 产 "
    assert cjk_index_text("用 Docker 部署").split() == ["用", "Docker", "部署", "署"]


def test_query_terms_drop_stopwords_and_split_cjk() -> None:
    assert query_terms("What did Caroline do at the LGBTQ support group?") == [
        "caroline",
        "lgbtq",
        "support",
        "group",
    ]
    assert query_terms("怎么部署 Docker") == ["怎么", "么部", "部署", "docker"]
    assert query_terms("") == []


def test_fts_query_quotes_every_term() -> None:
    assert fts_or_query(['a"b', "辣"]) == '"a""b" OR "辣"*'
    assert baseline_fts_query("NEAR(x y) AND col:z") == '"NEAR(x" OR "y)" OR "AND" OR "col:z"'


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
def test_any_text_is_a_valid_fts_query(text: str) -> None:
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE f USING fts5(body, tokenize='porter unicode61')")
    conn.execute("INSERT INTO f VALUES ('hello world 部署')")
    for match in (fts_or_query(query_terms(text)), baseline_fts_query(text)):
        if match:
            conn.execute("SELECT rowid FROM f WHERE f MATCH ?", (match,)).fetchall()


def test_a_date_glued_to_chinese_is_its_own_search_term() -> None:
    """ "2024年3月测试" was one token (digits and CJK are both \\w) that matched nothing."""
    assert query_terms("2024年3月测试环境的端口")[:3] == ["2024", "年", "3"]
    assert "3" in query_terms("Model 3是特斯拉")
