"""`kenning ui` in a real browser: Debian's Chromium, headless, driven by Selenium.

The server is the real command (``kenning ui --no-open``) in a subprocess on a
free loopback port; the browser reaches it over HTTP like a person's would.
Selenium is given the system chromedriver, so Selenium Manager never looks for
(or downloads) a browser. Without Chromium these tests skip, except in CI
(``CI=true``), where they fail: CI must run them.

Screenshots go to ``KENNING_UI_SCREENS`` when set (the README's come from
``KENNING_UI_SCREENS=docs/screens``), else to the test's temporary folder.
"""

from __future__ import annotations

import http.server
import os
import re
import shutil
import signal
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.ui.conftest import SET_ARGS, Seeded

from kenning.home import Home
from kenning.mcp.client import kenning_argv
from kenning.memory.store import Target

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
WAIT_S = 120  # a hang guard: under load a page's write took over 20 s
URL = re.compile(r"^(http://127\.0\.0\.1:\d+/\?token=\S+)$", re.M)


@pytest.fixture(scope="module")
def driver() -> Iterator[Any]:
    missing = [p for p in (CHROMIUM, CHROMEDRIVER) if not shutil.which(p)]
    if missing:
        reason = f"no headless browser for the UI tests: {', '.join(missing)} missing"
        if os.environ.get("CI") == "true":
            pytest.fail(reason + " (.ci/run installs chromium and chromium-driver)")
        pytest.skip(reason)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in (
        "--headless=new",
        "--no-sandbox",  # CI runs as root, where Chromium's sandbox cannot start
        "--disable-dev-shm-usage",
        "--disable-gpu",
        "--window-size=1200,860",
        "--force-prefers-reduced-motion",
    ):
        options.add_argument(arg)
    browser = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    browser.implicitly_wait(0)
    try:
        yield browser
    finally:
        browser.quit()


class Server:
    """``kenning ui --no-open`` on a free port; ``url`` is the link it prints."""

    def __init__(self, home: Path, *args: str) -> None:
        env = {**os.environ, "KENNING_HOME": str(home)}
        self.process = subprocess.Popen(
            kenning_argv(*SET_ARGS, "ui", "--no-open", *args),
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert self.process.stdout is not None
        line = self.process.stdout.readline()  # the URL, once it listens
        found = URL.match(line.strip())
        if not found:
            self.stop()
            raise RuntimeError(f"kenning ui did not start: {line!r} {self.process.stderr}")
        self.url = found.group(1)
        self.base = self.url.split("/?", 1)[0]

    def stop(self) -> str:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
        _, err = self.process.communicate(timeout=30)
        return err


@pytest.fixture
def server(seeded: Seeded) -> Iterator[Server]:
    running = Server(seeded.root)
    yield running
    running.stop()


@pytest.fixture
def screens(tmp_path: Path) -> Path:
    folder = Path(os.environ.get("KENNING_UI_SCREENS") or tmp_path / "screens")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def wait_for(driver: Any, css: str, text: str | None = None) -> Any:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import WebDriverWait

    wait = WebDriverWait(driver, WAIT_S)
    if text is not None:
        wait.until(ec.text_to_be_present_in_element((By.CSS_SELECTOR, css), text))
    return wait.until(ec.visibility_of_element_located((By.CSS_SELECTOR, css)))


def open_nav(driver: Any, name: str) -> None:
    from selenium.webdriver.common.by import By

    driver.find_element(By.LINK_TEXT, name).click()
    wait_for(driver, "h1", name)


def test_a_request_without_the_token_gets_403(driver: Any, server: Server) -> None:
    driver.delete_all_cookies()
    driver.get(server.base + "/memory")
    assert "403 Forbidden" in driver.find_element("tag name", "body").text
    driver.get(server.base + "/?token=not-the-token")
    assert "403 Forbidden" in driver.find_element("tag name", "body").text


def test_each_page_renders_with_data(driver: Any, server: Server, screens: Path) -> None:
    from selenium.webdriver.common.by import By

    driver.get(server.url)
    wait_for(driver, "h1", "Dashboard")
    assert "token" not in driver.current_url  # moved into the cookie
    assert len(driver.find_elements(By.CSS_SELECTOR, "svg.chart")) >= 5
    driver.save_screenshot(str(screens / "dashboard.png"))
    expected = {
        "Hot memory": "Postgres 17 on port 5433",
        "History": "memory: added in MEMORY.md",
        "Sessions": "review of staging deploy",
        "Skills": "deploy-steps",
        "Journal": "Decided to keep the staging database",
        "Dreaming": "What dreaming would do now",
    }
    for name, seen in expected.items():
        open_nav(driver, name)
        assert seen in driver.find_element(By.ID, "main").text, name
    open_nav(driver, "Sessions")
    driver.find_element(By.LINK_TEXT, "staging deploy").click()
    wait_for(driver, "h1", "staging deploy")
    folded = driver.find_element(By.CSS_SELECTOR, "details.tool")
    assert not folded.get_attribute("open")
    folded.find_element(By.TAG_NAME, "summary").click()
    assert "memory_search" in folded.text
    assert "compaction 1" in driver.find_element(By.ID, "main").text
    open_nav(driver, "Search")
    box = driver.find_element(By.NAME, "q")
    box.send_keys("staging database port")
    box.submit()
    wait_for(driver, "#hits mark")
    driver.find_element(By.CSS_SELECTOR, "#hits a.why").click()
    wait_for(driver, "table.breakdown", "lexical")
    driver.save_screenshot(str(screens / "search.png"))
    open_nav(driver, "Hot memory")
    driver.save_screenshot(str(screens / "memory.png"))


def test_add_appears_then_revert_removes_it(
    driver: Any, server: Server, seeded: Seeded, screens: Path
) -> None:
    from selenium.webdriver.common.by import By

    fact = "The release train leaves every second Tuesday"
    driver.get(server.url)
    open_nav(driver, "Hot memory")
    section = driver.find_element(By.ID, "file-memory")
    section.find_element(By.TAG_NAME, "summary").click()
    section.find_element(By.NAME, "text").send_keys(fact)
    section.find_element(By.CSS_SELECTOR, "form[action='/memory/add'] button").click()
    wait_for(driver, "#done", "MEMORY.md: added: " + fact)
    assert fact in driver.find_element(By.ID, "file-memory").text
    open_nav(driver, "History")
    top = driver.find_element(By.CSS_SELECTOR, "ol.timeline li")
    assert fact in top.text
    top.find_element(By.LINK_TEXT, "diff").click()
    wait_for(driver, "ol.timeline li pre.diff", fact)
    driver.save_screenshot(str(screens / "history.png"))
    top.find_element(By.LINK_TEXT, "revert…").click()
    wait_for(driver, "#confirm-revert").click()
    wait_for(driver, "#done", "MEMORY.md: removed: " + fact)
    open_nav(driver, "Hot memory")
    assert fact not in driver.find_element(By.ID, "file-memory").text
    with _home(seeded.root) as home:
        assert fact not in home.memory.read(Target.MEMORY).entries
        assert home.history.log(limit=1)[0].message.startswith("memory: removed in MEMORY.md")


class _home:
    """A plain context manager over ``Home.open`` for the assertions after a browser write."""

    def __init__(self, root: Path) -> None:
        self.home = Home.open(root)

    def __enter__(self) -> Home:
        return self.home

    def __exit__(self, *exc: object) -> None:
        self.home.close()


def test_a_refused_write_shows_the_refusal(driver: Any, server: Server) -> None:
    from selenium.webdriver.common.by import By

    driver.get(server.url)
    open_nav(driver, "Hot memory")
    section = driver.find_element(By.ID, "file-memory")
    section.find_element(By.TAG_NAME, "summary").click()
    remove = section.find_element(By.CSS_SELECTOR, "form[action='/memory/remove']")
    remove.find_element(By.NAME, "old").send_keys("words in no entry at all")
    remove.find_element(By.TAG_NAME, "button").click()
    shown = wait_for(driver, "#refusal", "refused: No entry contains")
    assert "Nothing was written." in shown.text


def test_a_foreign_origin_is_refused(
    driver: Any, server: Server, seeded: Seeded, tmp_path: Path
) -> None:
    """A page served elsewhere on this machine posts to the UI: refused, nothing written."""
    driver.get(server.url)  # the browser holds the cookie: the attack's best case
    wait_for(driver, "h1", "Dashboard")
    site = tmp_path / "site"
    site.mkdir()
    (site / "attack.html").write_text(
        f'<form id="f" method="post" action="{server.base}/memory/add">'
        '<input name="text" value="planted by another site"><input name="target" value="memory">'
        "</form><script>document.getElementById('f').submit()</script>"
    )
    handler = lambda *a: http.server.SimpleHTTPRequestHandler(*a, directory=str(site))  # noqa: E731
    other = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=other.serve_forever, daemon=True)
    thread.start()
    try:
        driver.get(f"http://localhost:{other.server_address[1]}/attack.html")
        # the SDK's 403 answer, the one `kenning mcp --http` gives a foreign page
        wait_for(driver, "body", "Invalid Origin header")
        assert driver.current_url == f"{server.base}/memory/add"
    finally:
        other.shutdown()
        other.server_close()
    with _home(seeded.root) as home:
        assert "planted by another site" not in home.memory.read(Target.MEMORY).entries
