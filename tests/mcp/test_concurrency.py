"""Another process writing memory through the API while MCP clients write it: nothing is lost."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import IO

import anyio

from kenning.home import Home
from kenning.mcp.client import payload, stdio_params, stdio_session, wait_for
from kenning.memory.store import Target

N = 20
SETTINGS = {"KENNING_EMBEDDING__PROVIDER": "none", "KENNING_MEMORY__MEMORY_BUDGET": "20000"}

WRITER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from kenning.home import Home
    from kenning.memory.store import Target

    flags = Path(sys.argv[1])
    home = Home.open()
    home.memory.read(Target.MEMORY)  # imports and config done before the start line
    (flags / "ready").touch()
    while not (flags / "go").exists():
        time.sleep(0.001)
    n = int(sys.argv[2])

    def mcp_has_written():
        return any(e.startswith("MCP client") for e in home.memory.read(Target.MEMORY).entries)

    for i in range(n):
        if i == n // 2:
            # The overlap the test checks, made certain rather than left to the
            # scheduler: the second half waits for the MCP side's first entry.
            deadline = time.monotonic() + 60
            while not mcp_has_written() and time.monotonic() < deadline:
                time.sleep(0.005)
        home.memory.add(Target.MEMORY, f"API writer fact number {i}", keep_both=True)
    """
)


def test_api_writer_and_mcp_clients_lose_nothing(
    home_dir: Path, tmp_path: Path, errlog: IO[str]
) -> None:
    flags = tmp_path / "flags"
    flags.mkdir()
    env = {**os.environ, "KENNING_HOME": str(home_dir), **SETTINGS}
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(flags), str(N)], env=env, stderr=subprocess.PIPE
    )

    async def main() -> None:
        async with stdio_session(stdio_params(home_dir, env=SETTINGS), errlog=errlog) as s:
            assert wait_for(lambda: (flags / "ready").exists(), timeout=30)

            async def add(i: int) -> None:
                result = await s.call_tool(
                    "memory",
                    {
                        "action": "add",
                        "target": "memory",
                        "content": f"MCP client fact number {i}",
                        "keep_both": True,
                    },
                )
                assert payload(result)["success"], payload(result)

            def api_has_written() -> bool:
                entries = Home.open(home_dir).memory.read(Target.MEMORY).entries
                return any(e.startswith("API writer") for e in entries)

            (flags / "go").touch()
            async with anyio.create_task_group() as group:
                for i in range(N // 2):
                    group.start_soon(add, i)
            # Symmetric to the writer: the second half waits for the API side's
            # first entry, so each side has entries after some of the other's.
            with anyio.fail_after(60):
                while not api_has_written():
                    await anyio.sleep(0.005)
            async with anyio.create_task_group() as group:
                for i in range(N // 2, N):
                    group.start_soon(add, i)

    try:
        anyio.run(main)
        _, err = writer.communicate(timeout=60)
    finally:
        if writer.poll() is None:
            writer.kill()
            writer.communicate()
    assert writer.returncode == 0, err.decode()

    entries = Home.open(home_dir).memory.read(Target.MEMORY).entries
    api = [e for e in entries if e.startswith("API writer")]
    mcp = [e for e in entries if e.startswith("MCP client")]
    assert len(entries) == 2 * N
    assert sorted(api) == sorted(f"API writer fact number {i}" for i in range(N))
    assert sorted(mcp) == sorted(f"MCP client fact number {i}" for i in range(N))
    # The two writers really overlapped: their entries interleave in the file
    # (each side's second half waits for the other side's first entry).
    positions = {e: n for n, e in enumerate(entries)}
    assert min(positions[e] for e in mcp) < max(positions[e] for e in api)
    assert min(positions[e] for e in api) < max(positions[e] for e in mcp)
