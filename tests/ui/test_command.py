"""`kenning ui` the command: it prints its link, serves on loopback, and refuses what it must."""

from __future__ import annotations

import socket

import httpx
from click.testing import CliRunner
from tests.ui.conftest import Seeded
from tests.ui.test_browser import Server

from kenning.bench import ui as ui_bench
from kenning.cli import cli


def test_the_command_serves_the_home_behind_its_link(seeded: Seeded) -> None:
    server = Server(seeded.root, "--read-only")
    try:
        assert server.base.startswith("http://127.0.0.1:")
        assert httpx.get(server.base + "/memory").status_code == 403
        with httpx.Client(base_url=server.base) as browser:
            assert browser.get(server.url, follow_redirects=True).status_code == 200
            page = browser.get("/memory")  # the cookie now opens every page
            assert page.status_code == 200 and "Postgres 17 on port 5433" in page.text
            assert "read-only" in page.text
    finally:
        err = server.stop()
    assert "kenning ui: serving" in err and "(read-only)" in err
    assert "Traceback" not in err


def test_a_busy_port_is_a_clear_error(seeded: Seeded) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        result = CliRunner().invoke(cli, ["ui", "--no-open", "--port", str(port)])
    assert result.exit_code == 1
    assert f"cannot listen on 127.0.0.1:{port}" in result.output
    assert "Choose another --port" in result.output


def test_bench_ui_times_every_page_beside_kenning_search() -> None:
    report = ui_bench.run(300, requests=2)
    pages = report["pages"]
    for name in ("dashboard", "memory", "history", "sessions", "search", "skills", "dreams"):
        assert pages[name]["p95_ms"] >= pages[name]["p50_ms"] > 0, name
    assert pages["kenning search"]["p50_ms"] > 0
    assert pages["dream candidates, computing"]["p50_ms"] > 0  # the first ask: at once
    assert pages["dream candidates, ready"]["p50_ms"] > 0
    assert pages["dream dry run, background"]["p50_ms"] > 0
    lines = ui_bench.table(report)
    assert "300 archived messages" in lines[0] and any("kenning search" in x for x in lines)
    assert any(x.startswith("dream dry run, background") and "no request waits" in x for x in lines)
    result = CliRunner().invoke(cli, ["bench", "ui", "--messages", "10"])
    assert result.exit_code == 2 and "--messages >= 100" in result.output
