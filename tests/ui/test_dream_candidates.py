"""The dreaming candidates are computed off the request path: the page answers at once."""

from __future__ import annotations

import html
import threading
import time
from collections.abc import Callable, Iterator
from datetime import datetime

import pytest
from tests.ui.conftest import Client, Seeded, candidates_when_ready, client_for

from kenning import clock
from kenning.home import Home
from kenning.learning.dream import Dreamer
from kenning.memory.store import Target

HELD_FOR = 30.0  # a hung test fails rather than waits forever


class Hold:
    """A real Dreamer whose clock (read first thing in a run) waits for ``release``."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.entered = threading.Event()
        self.runs = 0
        self.failure: Exception | None = None

    def dreamer(self, home: Home) -> Dreamer:
        return Dreamer(home, clock=self._now)

    def _now(self) -> datetime:
        self.runs += 1
        self.entered.set()
        assert self.release.wait(HELD_FOR), "the test never released the dry run"
        if self.failure is not None:
            raise self.failure
        return clock.local()


@pytest.fixture
def held(seeded: Seeded) -> Iterator[tuple[Client, Hold]]:
    hold = Hold()
    for client in client_for(seeded.root, dreamer=hold.dreamer):
        try:
            yield client, hold
        finally:
            hold.release.set()  # let the worker end before the home closes


def fragment(client: Client) -> tuple[str, float]:
    began = time.monotonic()
    answer = client.http.get("/dreams/candidates", headers={"hx-request": "true"})
    assert answer.status_code == 200
    return html.unescape(answer.text), time.monotonic() - began


def wait_for(done: Callable[[], bool]) -> None:
    deadline = time.monotonic() + HELD_FOR
    while not done():
        assert time.monotonic() < deadline
        time.sleep(0.02)


def test_the_fragment_answers_at_once_while_the_dry_run_is_held(
    held: tuple[Client, Hold],
) -> None:
    client, hold = held
    client.home.journal.append("The VPN config lives in ops/vpn")
    body, took = fragment(client)
    assert took < 2.0 and "computing… (started 0 s ago" in body
    assert 'hx-get="/dreams/candidates"' in body and 'hx-trigger="load delay:2s"' in body
    assert hold.entered.wait(HELD_FOR)
    body, took = fragment(client)  # asked again while held: still at once, no second run
    assert took < 2.0 and "computing…" in body and "The VPN config" not in body
    hold.release.set()
    ready = candidates_when_ready(client)
    assert "The VPN config lives in ops/vpn" in html.unescape(ready)
    assert "hx-trigger" not in ready  # ready: the poll stops
    assert hold.runs == 1


def test_a_change_recomputes_and_the_old_result_is_labelled_stale(
    held: tuple[Client, Hold],
) -> None:
    client, hold = held
    client.home.journal.append("The VPN config lives in ops/vpn")
    hold.release.set()
    assert "The VPN config" in html.unescape(candidates_when_ready(client))
    assert hold.runs == 1
    hold.release.clear()
    hold.entered.clear()
    client.home.memory.add(Target.MEMORY, "Backups run nightly at 02:00")
    client.home.journal.append("Redis runs on port 6380 on the cache host")
    body, took = fragment(client)
    assert took < 2.0 and "computing…" in body
    assert "From before the last change" in body
    assert "The VPN config" in body and "Redis runs on port 6380" not in body
    assert hold.entered.wait(HELD_FOR)
    hold.release.set()
    ready = html.unescape(candidates_when_ready(client))
    assert "Redis runs on port 6380" in ready and "From before the last change" not in ready
    assert hold.runs == 2


def test_an_error_in_the_background_run_is_shown_with_its_message(
    held: tuple[Client, Hold],
) -> None:
    client, hold = held
    hold.failure = RuntimeError("the archive is locked by another process")
    hold.release.set()
    body = html.unescape(candidates_when_ready(client))
    assert "The dry run failed: the archive is locked by another process" in body
    assert "Traceback" not in body


def test_the_server_starts_the_dry_run_for_a_cold_cache(seeded: Seeded) -> None:
    hold = Hold()
    for _client in client_for(seeded.root, dreamer=hold.dreamer):
        try:
            assert hold.runs == 0  # a TestClient is no server: nothing started yet
        finally:
            hold.release.set()
    from kenning.ui.app import Ui, build_app
    from kenning.ui.security import Guard

    home = Home.open(seeded.root, overrides={"embedding": {"provider": "none"}})
    ui = Ui(home, Guard("127.0.0.1", 8765), dreamer=hold.dreamer)
    build_app(ui)
    try:
        hold.release.clear()
        ui.start()  # what `serve` does before it answers
        assert hold.entered.wait(HELD_FOR)
        wait_for(lambda: hold.runs == 1)
    finally:
        hold.release.set()
        ui.close()
        home.close()
