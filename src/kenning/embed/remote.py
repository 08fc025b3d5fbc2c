"""An OpenAI-compatible remote embedder (``POST {base_url}/embeddings``).

Works with OpenAI, Ollama (``http://localhost:11434/v1``), llama.cpp,
vLLM and similar servers. Uses only the standard library (urllib). The API
key is read from an environment variable named in config, never stored in
config. Invariants: vectors come back in input order (sorted by the
response's ``index``), L2-normalised; every failure is an ``EmbedderError``
naming the server and what to check. No relevance floor unless configured:
cosine bands differ per model and an uncalibrated floor would hide results.

Retries follow :mod:`kenning.retry`, the policy the model adapters use: 429,
408, 5xx and connection failures are tried again (``Retry-After`` honoured up
to its cap, otherwise backoff with jitter), other 4xx and malformed answers
surface at once. The count lives in each request, so one embedder can serve
concurrent callers.
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from kenning.embed.base import Calibration, EmbedderError, EmbedderIdentity, Vectors, normalise
from kenning.retry import Backoff, gave_up_note, parse_retry_after, transient_status


class _Transient(Exception):
    """One failed try that waiting may fix; carries the message and the server's wait."""

    def __init__(self, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class OpenAIEmbedder:
    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        dims: int = 0,
        timeout: float = 60.0,
        batch: int = 64,
        relevance_floor: float | None = None,
        retry: Backoff | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if not base_url or not model:
            raise EmbedderError(
                "the openai embedder needs [embedding] base_url and model "
                "(e.g. base_url = 'http://localhost:11434/v1', model = 'nomic-embed-text')"
            )
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.api_key = api_key
        self.timeout = timeout
        self.batch = max(1, batch)
        self._dims = dims
        self._floor = relevance_floor
        self.retry = retry or Backoff()
        self._sleep = sleep

    @property
    def identity(self) -> EmbedderIdentity:
        if not self._dims:  # learn the dimension from the server once
            self._dims = int(self._request(["dimension probe"]).shape[1])
        return EmbedderIdentity(name=f"openai/{self.model}", dims=self._dims, version=self.base_url)

    @property
    def relevance_floor(self) -> float | None:
        return self._floor

    @property
    def abstention(self) -> Calibration | None:
        return None  # not calibrated: only the relevance floor applies

    def embed_passages(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return np.zeros((0, self.identity.dims), dtype=np.float32)
        parts = [
            self._request(list(texts[i : i + self.batch])) for i in range(0, len(texts), self.batch)
        ]
        return np.vstack(parts)

    def embed_query(self, text: str) -> Vectors:
        vector: Vectors = self._request([text])[0]
        return vector

    def _request(self, texts: list[str]) -> Vectors:
        url = f"{self.base_url}/embeddings"
        body = json.dumps({"model": self.model, "input": texts}).encode("utf-8")
        attempts = self.retry.attempts()
        while True:
            try:
                payload = self._post(url, body)
                break
            except _Transient as failure:
                wait = attempts.next_wait(failure.retry_after)
                if wait is None:
                    note = gave_up_note(self.retry, attempts.made, failure.retry_after)
                    raise EmbedderError(f"{failure} ({note})" if note else str(failure)) from None
            self._sleep(wait)
        try:
            rows = sorted(payload["data"], key=lambda item: item.get("index", 0))
            vectors = np.array([row["embedding"] for row in rows], dtype=np.float32)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise EmbedderError(f"{url}: unexpected response shape ({exc})") from exc
        if vectors.ndim != 2 or len(vectors) != len(texts):
            raise EmbedderError(f"{url}: asked for {len(texts)} vectors, got {len(vectors)}")
        if self._dims and vectors.shape[1] != self._dims:
            raise EmbedderError(
                f"{url}: model {self.model} returned {vectors.shape[1]} dimensions, "
                f"config says {self._dims}"
            )
        return normalise(vectors)

    def _post(self, url: str, body: bytes) -> Any:
        """One try: the decoded answer, ``_Transient`` to try again, ``EmbedderError`` to stop."""
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        request = urllib.request.Request(url, data=body, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                return json.loads(response.read().decode("utf-8"))
        except urllib.error.HTTPError as exc:
            detail = exc.read().decode("utf-8", "replace")[:300]
            message = f"{url}: HTTP {exc.code} {exc.reason}: {detail}"
            if transient_status(exc.code):
                raise _Transient(message, parse_retry_after(dict(exc.headers.items()))) from None
            raise EmbedderError(message) from exc
        except (urllib.error.URLError, TimeoutError, OSError) as exc:
            raise _Transient(f"{url}: cannot reach the embedding server ({exc})") from None
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise EmbedderError(f"{url}: the response is not JSON ({exc})") from exc
