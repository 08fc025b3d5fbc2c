"""Invalid Unicode in a request (a lone surrogate, e.g. half an emoji) still gets its answer.

A host that cuts an emoji in half sends ``"\\ud800"``: valid JSON syntax, but no
UTF-8 encoder takes the character, and the SDK's parser rejects the message.
Every call must still be answered, promptly, and nothing may be stored broken.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import anyio
import httpx
import pytest
from tests.mcp.conftest import escaping_stdio_session

from kenning.home import Home
from kenning.mcp import KenningService, Peer
from kenning.mcp.catalog import TOOLS
from kenning.mcp.client import HttpServer, payload, stdio_params
from kenning.memory.store import Target

KEYWORD = {"KENNING_EMBEDDING__PROVIDER": "none"}
ANSWER_WITHIN_S = 20.0

# One call per tool, a lone surrogate (high or low) in a string argument.
CALLS: dict[str, dict[str, Any]] = {
    "memory": {"action": "add", "target": "user", "content": "User likes \ud83c tea"},
    "memory_search": {"query": "tea \ud800"},
    "memory_get": {"path": "memories/USER\udfff.md"},
    "session_search": {"query": "\udc80 deploy"},
    "journal_append": {"text": "Half an emoji: \ud83d, then more."},
    "skill_list": {"query": "bisect \ud800"},
    "skill_view": {"name": "git-bisect\ud800"},
    "skill_manage": {"action": "delete", "name": "\ud800"},
}


def test_every_tool_has_a_surrogate_case() -> None:
    assert set(CALLS) == {tool.name for tool in TOOLS}


@dataclass(frozen=True)
class Answer:
    data: dict[str, Any]
    is_error: bool | None
    log: str  # what the server wrote on stderr while answering
    shown: dict[str, Any]  # the user memory right after the call
    failed: str = ""  # the call raised (no answer in time, the session broke)


@pytest.fixture(scope="module")
def stdio_answers(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Answer], str]:
    """One server over stdio answers every tool's call in turn, each read back on its own.

    The cases differ in the call, not in the server, so they share one (a server
    started per case cost a process start each). A call that gets no answer fails
    its own case; one that broke the session fails the later ones too.
    """
    home_dir = tmp_path_factory.mktemp("surrogates") / "home"
    log_path = home_dir.parent / "server-stderr.log"
    answers: dict[str, Answer] = {}

    async def main(errlog: IO[str]) -> None:
        params = stdio_params(home_dir, env=KEYWORD)
        async with escaping_stdio_session(params, errlog=errlog) as session:
            for tool in sorted(CALLS):
                start = log_path.stat().st_size
                try:
                    with anyio.fail_after(ANSWER_WITHIN_S):
                        result = await session.call_tool(tool, CALLS[tool])
                        show = {"action": "show", "target": "user"}
                        after = await session.call_tool("memory", show)
                except Exception as exc:  # that case fails, the next ones are still asked
                    answers[tool] = Answer({}, None, "", {}, failed=repr(exc))
                    continue
                # The server logs the repair as it reads the request, before it answers.
                log = log_path.read_bytes()[start:].decode("utf-8")
                answers[tool] = Answer(payload(result), result.is_error, log, payload(after))

    with pytest.MonkeyPatch.context() as env:
        for name in [n for n in os.environ if n.startswith("KENNING_")]:
            env.delenv(name)  # as the per-test home fixture does: nothing of the developer's
        with log_path.open("w+", encoding="utf-8") as errlog:
            anyio.run(main, errlog)
    return home_dir, answers, log_path.read_text(encoding="utf-8")


@pytest.mark.parametrize("tool", sorted(CALLS))
def test_a_lone_surrogate_in_any_tool_call_is_answered_over_stdio(
    tool: str, stdio_answers: tuple[Path, dict[str, Answer], str]
) -> None:
    home_dir, answers, whole_log = stdio_answers
    args, answer = CALLS[tool], answers[tool]
    assert not answer.failed, answer.failed
    data = answer.data
    assert answer.is_error == (data.get("success") is False), data
    argument = next(key for key, value in args.items() if "\\u" in ascii(value))
    assert argument in data["warning"] and "U+FFFD" in data["warning"], data
    assert "\\ud" not in json.dumps(data)  # nothing comes back that a client cannot decode
    assert "invalid Unicode" in answer.log and "Traceback" not in whole_log
    if tool == "memory":
        assert data["done"] and answer.shown["entries"][0]["text"] == "User likes \ufffd tea"
        stored = Home.open(home_dir).memory.read(Target.USER).entries
        assert stored == ("User likes \ufffd tea",)


def test_a_lone_surrogate_over_http_is_answered(home_dir: Path) -> None:
    """Over HTTP the SDK would answer 400 "Parse error"; the call runs instead."""
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}

    def post(client: httpx.Client, url: str, body: str) -> httpx.Response:
        return client.post(url, content=body.encode("utf-8"), headers=headers, timeout=20)

    def message(response: httpx.Response) -> dict[str, Any]:
        data = [line[5:] for line in response.text.splitlines() if line.startswith("data:")]
        parsed: dict[str, Any] = json.loads(data[-1] if data else response.text)
        return parsed

    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "raw", "version": "1"},
        },
    }
    call = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {"name": "memory_search", "arguments": {"query": "tea \ud800"}},
    }
    with HttpServer(home_dir, env=KEYWORD) as server, httpx.Client() as client:
        opened = post(client, server.url, json.dumps(init))
        assert opened.status_code == 200, opened.text
        headers["Mcp-Session-Id"] = opened.headers["mcp-session-id"]
        headers["Mcp-Protocol-Version"] = "2025-06-18"
        ready = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        assert post(client, server.url, json.dumps(ready)).status_code == 202
        answered = post(client, server.url, json.dumps(call))  # ascii: "\\ud800" in the body
        assert "\\ud800" in json.dumps(call)
        assert answered.status_code == 200, answered.text
        result = message(answered)["result"]
        data = json.loads(result["content"][0]["text"])
        assert data["success"] and "query" in data["warning"]


def test_the_service_repairs_what_reaches_it_in_process(home_dir: Path) -> None:
    service = KenningService(Home.open(home_dir, overrides={"embedding": {"provider": "none"}}))
    peer = Peer(client="half-\ud83d-host", version="1")
    add = {"action": "add", "target": "memory", "content": "Build with \udcffmake"}
    done = service.call("memory", add, peer)
    assert done.ok and "content" in done.result["warning"]
    assert "\ud83d" not in done.text and "\udcff" not in done.text
    ops = {"target": "memory", "operations": [{"action": "add", "content": "x\ud800"}]}
    assert "operations[0].content" in service.call("memory", ops, peer).result["warning"]
    unknown = service.call("memory\ud800", {}, peer)
    assert unknown.result["error"] == "unknown_tool" and "\ud800" not in unknown.text
    service.close()
    assert Home.open(home_dir).memory.read(Target.MEMORY).entries == (
        "Build with \ufffdmake",
        "x\ufffd",
    )


def test_the_protocol_is_read_off_fd_0_so_children_cannot_swallow_it(tmp_path: Path) -> None:
    """Kenning reads stdin itself (to repair it), so it also moves the protocol off fd 0."""
    script = (
        "import os, anyio\n"
        "from kenning.mcp.wire import protocol_stdin\n"
        "wire = os.fstat(0)\n"
        "async def main():\n"
        "    with protocol_stdin() as lines:\n"
        "        print(repr(os.read(0, 100)))\n"  # what a child (git, a hook) would read
        "        print(await lines.readline(), end='')\n"
        "    print(os.path.samestat(os.fstat(0), wire))\n"  # fd 0 is the wire again
        "anyio.run(main)\n"
    )
    line = json.dumps({"q": "\ud800"})
    done = subprocess.run(
        [sys.executable, "-c", script],
        input=f"{line}\nrest\n",
        capture_output=True,
        text=True,
        timeout=300,  # a hang guard: the probe imports kenning, slow under load and coverage
    )
    assert done.returncode == 0, done.stderr
    child, protocol, after = done.stdout.splitlines()
    assert child == "b''" and json.loads(protocol) == {"q": "\ufffd"}
    assert after == "True"
