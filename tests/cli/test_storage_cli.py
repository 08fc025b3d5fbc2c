"""``kenning storage``: status on both backends, and migrate SQLite -> PostgreSQL for real."""

from __future__ import annotations

import json
import secrets
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from tests.conftest import drop_schema

from kenning.cli import cli
from kenning.home import Home
from kenning.search.engine import SearchEngine
from kenning.storage import admin, open_storage
from kenning.storage.records import Message
from kenning.testing import FakeEmbedder


def run(*args: str, code: int = 0, env: dict[str, str] | None = None) -> Result:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False, env=env)
    assert result.exit_code == code, result.output
    return result


def _fill(home: Home) -> None:
    """Sessions (one a child of another), NUL in a message, vectors, memory chunks, recalls."""
    archive = home.archive
    parent = archive.start_session("cli", session_id="p1", title="first", meta={"k": 1})
    child = archive.start_session("subagent", session_id="a-child", parent_id=parent)
    for i in range(30):
        archive.append(parent, Message("user", f"deploy step {i}: staging db-{i} ok"))
    archive.append(child, Message("tool", "raw \x00 output", tool_name="shell"))
    archive.append(child, Message("assistant", "我们昨天把新版本部署到生产环境了"))
    home.layout.memory_file.parent.mkdir(parents=True, exist_ok=True)
    home.layout.memory_file.write_text("Project uses pnpm\n\nTea, not coffee\n")
    engine = SearchEngine(archive, FakeEmbedder(), layout=home.layout)
    engine.index_pending()
    engine.search("staging db")
    engine.close()


def test_status_without_an_archive_creates_none(tmp_path: Path) -> None:
    out = json.loads(run("storage", "status", "--json").stdout)
    assert out["backend"] == "sqlite" and out["archive"] is None
    assert "no archive yet" in run("storage", "status").stdout
    assert not Path(out["path"]).exists()


def test_status_counts_what_the_sqlite_archive_holds() -> None:
    home = Home.open()
    _fill(home)
    home.close()
    out = json.loads(run("storage", "status", "--json").stdout)
    assert (out["backend"], out["schema_version"], out["schema_latest"]) == ("sqlite", 3, 3)
    assert out["counts"]["messages"] == 32 and out["counts"]["sessions"] == 2
    assert out["counts"]["message_vectors"] == 32 and out["counts"]["memory_chunks"] >= 1
    assert "fake" in out["vectors_identity"]
    assert "messages  32 (32 in the text index, 0 waiting)" in run("storage", "status").stdout


def test_migrate_copies_losslessly_again_changes_nothing_and_an_interrupted_copy_resumes(
    pg_url: str, request: pytest.FixtureRequest
) -> None:
    schema = f"test_{secrets.token_hex(6)}"
    request.addfinalizer(lambda: drop_schema(pg_url, schema))
    home = Home.open()
    _fill(home)
    home.close()

    # a copy killed after its messages (each batch is one transaction), before the rest
    source = open_storage(home.layout.state_db, backend="sqlite")
    target = open_storage(home.layout.state_db, url=pg_url, schema=schema)

    def killed(table: str, n: int) -> None:
        if table == "messages":
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        admin.copy_archive(source, target, killed)
    assert admin.checksums(target)["messages"] == admin.checksums(source)["messages"]
    assert admin.row_counts(target)["message_vectors"] == 0
    source.close()
    target.close()

    first = json.loads(
        run("storage", "migrate", "--to", pg_url, "--schema", schema, "--json").stdout
    )
    assert first["identical"] and all(t["match"] for t in first["tables"].values())
    assert first["tables"]["messages"]["rows"] == 32 and first["copied"]["sessions"] == 0
    assert first["copied"]["messages"] == 0 and first["copied"]["message_vectors"] == 32
    assert first["indexed"] == 32
    assert "***" in first["target"] and pg_url.split(":")[2].split("@")[0] not in first["target"]
    again = run("storage", "migrate", "--to", pg_url, "--schema", schema)
    assert "Every table matches" in again.stdout and "DIFFERS" not in again.stdout
    assert "+0 " in again.stdout

    # the home, pointed at the server, finds the same things
    env = {"KENNING_STORAGE__URL": pg_url, "KENNING_STORAGE__SCHEMA": schema}
    status = json.loads(run("storage", "status", "--json", env=env).stdout)
    assert status["backend"] == "postgres" and status["counts"]["messages"] == 32
    assert status["counts"]["index_pending"] == 0 and status["vector_indexes"]
    server_home = Home.open(environ=env)
    lite_home = Home.open()
    kinds: dict[str, Any] = {}
    for name, h in (("postgres", server_home), ("sqlite", lite_home)):
        engine = SearchEngine(h.archive, FakeEmbedder(), layout=h.layout)
        kinds[name] = [(x.kind, x.id) for x in engine.search("staging db-7 部署").hits]
        engine.close()
        h.close()
    assert kinds["postgres"] == kinds["sqlite"] and kinds["sqlite"]
    messages = open_storage(home.layout.state_db, url=pg_url, schema=schema)
    assert messages.sessions.parent("a-child") == "p1"
    assert messages.sessions.messages("a-child")[0].content == "raw \x00 output"
    messages.close()


def test_migrate_refuses_a_target_that_is_not_postgres_or_a_home_without_archive() -> None:
    assert (
        "no SQLite archive" in run("storage", "migrate", "--to", "postgresql://x/y", code=1).output
    )
    Home.open().archive.start_session("cli")
    assert "postgresql:// URL" in run("storage", "migrate", "--to", "mysql://x", code=1).output


def test_an_unreachable_server_is_one_clear_line(tmp_path: Path) -> None:
    env = {"KENNING_STORAGE__URL": "postgresql://k@127.0.0.1:1/none"}
    out = run("storage", "status", env=env, code=1).output
    assert "cannot reach PostgreSQL" in out and "Traceback" not in out


def test_any_command_on_an_unusable_storage_says_so_without_a_traceback() -> None:
    env = {"KENNING_STORAGE__URL": "postgresql://k@127.0.0.1:1/none"}
    out = run("sessions", "list", env=env, code=1).output
    assert "cannot reach PostgreSQL" in out and "Connection refused" in out
    assert "Traceback" not in out


def test_a_migrate_killed_midway_resumes_to_an_identical_copy(
    pg_url: str, request: pytest.FixtureRequest
) -> None:
    import os
    import signal
    import subprocess
    import sys
    import time

    import numpy as np

    schema = f"test_{secrets.token_hex(6)}"
    request.addfinalizer(lambda: drop_schema(pg_url, schema))
    home = Home.open()
    _fill(home)
    vector = np.ones(384, np.float32)
    cache = home.archive.storage.embedding_cache
    cache.put_many("fake@1", "p", [(i.to_bytes(4, "big"), vector * i) for i in range(40_000)])
    home.close()
    command = [sys.executable, "-m", "kenning", "storage", "migrate", "--to", pg_url]
    command += ["--schema", schema]
    child = subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=os.environ
    )
    target = open_storage(home.layout.state_db, url=pg_url, schema=schema)
    deadline = time.monotonic() + 60
    while child.poll() is None and time.monotonic() < deadline:
        try:
            if admin.row_counts(target)["embed_cache"] > 0:
                break
        except Exception:  # the child is still creating the schema
            pass
        time.sleep(0.02)
    killed = child.poll() is None
    child.send_signal(signal.SIGKILL)
    child.wait()
    assert killed, "the copy finished before it could be killed: make the archive bigger"
    assert 0 < admin.row_counts(target)["embed_cache"] < 40_000  # stopped midway
    target.close()
    done = json.loads(
        run("storage", "migrate", "--to", pg_url, "--schema", schema, "--json").stdout
    )
    assert done["identical"] and done["tables"]["embed_cache"]["target_rows"] == 40_000


def test_status_of_a_server_without_the_archive_yet_creates_none(
    pg_url: str, request: pytest.FixtureRequest
) -> None:
    schema = f"test_{secrets.token_hex(6)}"
    request.addfinalizer(lambda: drop_schema(pg_url, schema))
    env = {"KENNING_STORAGE__URL": pg_url, "KENNING_STORAGE__SCHEMA": schema}
    out = json.loads(run("storage", "status", "--json", env=env).stdout)
    assert out["backend"] == "postgres" and out["archive"] is None and schema in out["location"]
    assert "(no archive yet)" in run("storage", "status", env=env).stdout
