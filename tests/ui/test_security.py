"""Who may use `kenning ui`: the token, the cookie, CSRF, Host, Origin and --read-only."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from starlette.testclient import TestClient
from tests.ui.conftest import PORT, Client, Seeded, client_for

from kenning.memory.store import Target
from kenning.ui.security import BAD_CSRF, NO_TOKEN, READ_ONLY

PAGES = (
    "/",
    "/memory",
    "/history",
    "/sessions",
    "/search?q=port",
    "/skills",
    "/journal",
    "/dreams",
)


def fresh(client: Client) -> TestClient:
    """The same app, from a browser that never had the link."""
    return TestClient(client.http.app, base_url=f"http://127.0.0.1:{PORT}")


@pytest.mark.parametrize("path", [*PAGES, "/static/htmx.min.js", "/no-such-page"])
def test_every_request_without_the_token_is_refused(client: Client, path: str) -> None:
    answer = fresh(client).get(path)
    assert answer.status_code == 403
    assert answer.text == NO_TOKEN


def test_a_wrong_token_or_cookie_is_refused(client: Client) -> None:
    browser = fresh(client)
    assert browser.get("/?token=guess", follow_redirects=False).status_code == 403
    browser.cookies.set(client.guard.cookie, "guess")
    assert browser.get("/memory").status_code == 403


def test_the_link_sets_a_strict_http_only_cookie_and_drops_the_token(client: Client) -> None:
    browser = fresh(client)
    moved = browser.get(f"/sessions?token={client.guard.token}&source=cli", follow_redirects=False)
    assert moved.status_code == 303
    assert moved.headers["location"] == "/sessions?source=cli"  # the token leaves the URL
    cookie = moved.headers["set-cookie"]
    assert cookie.startswith(f"kenning_ui_{PORT}={client.guard.token};")
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie
    assert browser.get("/sessions?source=cli").status_code == 200  # the cookie now suffices


def test_a_write_needs_the_csrf_token(client: Client) -> None:
    before = client.home.memory.read(Target.MEMORY).entries
    answer = client.http.post("/memory/add", data={"target": "memory", "text": "sneaky entry"})
    assert answer.status_code == 403 and answer.text == BAD_CSRF
    wrong = client.http.post(
        "/memory/add", data={"target": "memory", "text": "sneaky entry", "csrf": "guess"}
    )
    assert wrong.status_code == 403
    assert client.home.memory.read(Target.MEMORY).entries == before
    # htmx sends it as a header instead of a form field
    header = {"x-kenning-csrf": client.guard.csrf}
    added = client.http.post(
        "/memory/add", data={"target": "memory", "text": "A header-borne entry"}, headers=header
    )
    assert added.status_code == 200
    assert "A header-borne entry" in client.home.memory.read(Target.MEMORY).entries


def test_the_token_in_the_url_is_not_enough_for_a_write(client: Client) -> None:
    browser = fresh(client)
    answer = browser.post(
        f"/memory/add?token={client.guard.token}",
        data={"target": "memory", "text": "x", "csrf": client.guard.csrf},
    )
    assert answer.status_code == 403


def test_a_foreign_origin_is_refused_even_with_cookie_and_csrf(client: Client) -> None:
    before = client.home.memory.read(Target.MEMORY).entries
    answer = client.http.post(
        "/memory/add",
        data={"target": "memory", "text": "from elsewhere", "csrf": client.guard.csrf},
        headers={"origin": "http://localhost:9999"},
    )
    assert answer.status_code == 403 and "Origin" in answer.text
    assert client.http.get("/", headers={"origin": "https://evil.example"}).status_code == 403
    assert client.home.memory.read(Target.MEMORY).entries == before
    own = client.http.get("/", headers={"origin": f"http://127.0.0.1:{PORT}"})
    assert own.status_code == 200


@pytest.mark.parametrize("host", ["evil.example", f"evil.example:{PORT}", "127.0.0.1:1"])
def test_a_foreign_host_is_refused(client: Client, host: str) -> None:
    """DNS rebinding: a name that resolves here but is not this server's."""
    assert client.http.get("/", headers={"host": host}).status_code == 421


def test_only_get_and_post(client: Client) -> None:
    assert client.http.delete("/memory").status_code == 405


@pytest.fixture
def read_only(seeded: Seeded) -> Iterator[Client]:
    yield from client_for(seeded.root, read_only=True)


def test_read_only_serves_views_and_refuses_every_write(read_only: Client) -> None:
    for path in PAGES:
        assert read_only.http.get(path).status_code == 200, path
    memory = read_only.http.get("/memory").text
    assert "read-only" in memory and 'action="/memory/add"' not in memory
    before = read_only.home.history.log(limit=100)
    for path, data in [
        ("/memory/add", {"target": "memory", "text": "x"}),
        ("/history/HEAD/revert", {}),
        ("/skills/proposals/1/accept", {}),
    ]:
        answer = read_only.post(path, data)
        assert answer.status_code == 403 and answer.text == READ_ONLY  # type: ignore[attr-defined]
    assert read_only.home.history.log(limit=100) == before
