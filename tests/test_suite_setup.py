"""The suite's own setup (tests/conftest.py): what keeps it fast without changing what it tests."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest
from tests.conftest import MATH_THREADS, THREADS_SET, embedding_cache


@pytest.mark.skipif(
    not os.environ.get("PYTEST_XDIST_WORKER_COUNT"), reason="only pytest-xdist workers share cores"
)
def test_each_xdist_worker_gets_its_share_of_the_math_threads() -> None:
    share = max(1, len(os.sched_getaffinity(0)) // int(os.environ["PYTEST_XDIST_WORKER_COUNT"]))
    assert all(name in os.environ for name in MATH_THREADS)
    assert {n: str(share) for n in MATH_THREADS if n in THREADS_SET} == THREADS_SET
    assert all(os.environ[name] == value for name, value in THREADS_SET.items())


def test_the_embedding_cache_lasts_beyond_a_scratch_temp_folder(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("KENNING_TEST_CACHE", str(tmp_path / "kept"))
    assert embedding_cache() == tmp_path / "kept" / "embeddings.sqlite"
    monkeypatch.delenv("KENNING_TEST_CACHE")
    default = Path(tempfile.gettempdir()) / "kenning-test-cache" / "embeddings.sqlite"
    assert embedding_cache() == default
