"""Many writers at once, and writers killed mid-write, never lose or corrupt an entry."""

from __future__ import annotations

import multiprocessing as mp
import os
import random
import select
import signal
import time
from pathlib import Path

import pytest

from kenning.memory.entries import decode, parse_entries
from kenning.memory.store import Operation, Target
from kenning.safety import threats
from kenning.testing import make_home

WRITERS = 8
# Eight writers at once is the contention; each write re-reads and rewrites the
# whole file, so a write that did not wait for the others' shows as a lost
# entry within a few dozen adds each (without the store's lock and stamp check
# 8 x 40 lost entries on every run). More adds only made the file longer.
ADDS_EACH = 40


@pytest.fixture(autouse=True, scope="module")
def _screen_built_before_forking() -> None:
    """The writers are forked from this process. Built here first, the threat screen
    (its regexes and plan: seconds of CPU) is not built again by every child, and a
    child killed moments after its start is killed while writing, not while building."""
    threats.scan("warm up the threat screen")


def _writer(root: str, writer: int, count: int, history: bool) -> None:
    home = make_home(Path(root), memory_budget=10_000_000, history=history)
    for i in range(count):
        home.memory.add(
            Target.MEMORY, f"writer {writer} fact {i}: value {writer * 10_000 + i}", keep_both=True
        )


def _run_writers(root: Path, writers: int, count: int, history: bool) -> None:
    ctx = mp.get_context("fork")
    procs = [
        ctx.Process(target=_writer, args=(str(root), w, count, history)) for w in range(writers)
    ]
    for proc in procs:
        proc.start()
    for proc in procs:
        proc.join(timeout=240)
        assert proc.exitcode == 0, f"writer exited with {proc.exitcode}"


@pytest.mark.slow
def test_8_processes_adding_at_once_lose_nothing(tmp_path: Path) -> None:
    _run_writers(tmp_path, WRITERS, ADDS_EACH, history=False)
    path = tmp_path / "memories" / "MEMORY.md"
    entries = parse_entries(decode(path.read_bytes()))
    expected = {
        f"writer {w} fact {i}: value {w * 10_000 + i}"
        for w in range(WRITERS)
        for i in range(ADDS_EACH)
    }
    assert len(entries) == WRITERS * ADDS_EACH
    assert set(entries) == expected


@pytest.mark.slow
def test_concurrent_writers_with_history_commit_every_write(tmp_path: Path) -> None:
    _run_writers(tmp_path, 4, 15, history=True)
    home = make_home(tmp_path)
    assert len(home.memory.read(Target.MEMORY).entries) == 60
    # One commit per write plus the initial commit: no write lost its commit to
    # git's index.lock under contention.
    commits = home.history.log(["memories"], limit=1000)
    assert len([c for c in commits if c.message.startswith("memory: added")]) == 60
    assert home.history.diff(None, ["memories"]) == ""


def _kill_loop_child(root: str, seed: int, writing: int) -> None:
    """Write until killed; says on ``writing`` (a pipe) once its first write is done."""
    home = make_home(Path(root), memory_budget=10_000_000, history=False)
    rng = random.Random(seed)
    i = 0
    while True:
        if i == 1:
            os.write(writing, b"w")
        # Mix of operations so the kill lands in adds, replaces and batch rewrites.
        entries = home.memory.read(Target.MEMORY).entries
        if entries and rng.random() < 0.3:
            victim = rng.choice(entries)
            home.memory.apply(
                Target.MEMORY,
                [Operation("replace", old_text=victim, content=f"{victim} (revised {seed}.{i})")],
            )
        else:
            home.memory.add(
                Target.MEMORY,
                f"kill-test {seed}.{i} " + "payload " * rng.randint(1, 40),
                keep_both=True,
            )
        i += 1


@pytest.mark.slow
def test_sigkill_at_random_moments_never_leaves_a_broken_file(tmp_path: Path) -> None:
    rng = random.Random(1234)
    path = tmp_path / "memories" / "MEMORY.md"
    previous: set[str] = set()
    for round_no in range(200):
        readable, writing = os.pipe()
        pid = os.fork()
        if pid == 0:  # child: write until killed
            try:
                os.close(readable)
                _kill_loop_child(str(tmp_path), round_no, writing)
            finally:
                os._exit(1)
        os.close(writing)
        # The kill lands at a random moment of the writing, not of the child's
        # start (a busy machine may take longer than the random delay to start it).
        assert select.select([readable], [], [], 120)[0], "the writer never wrote"
        os.close(readable)
        time.sleep(rng.uniform(0.0, 0.03))
        os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
        assert os.WIFSIGNALED(status), "the writer should have been killed, not exited"
        entries = parse_entries(decode(path.read_bytes()))
        for entry in entries:  # every entry is whole: no torn writes
            assert entry.startswith("kill-test ")
            assert entry.rstrip().endswith(("payload", ")"))
        # A kill may stop a write, but never removes what an earlier write saved
        # (a replace rewrites one entry in place, so compare entry prefixes).
        prefixes = {e.split(" payload")[0] for e in entries}
        assert {p.split(" payload")[0] for p in previous} <= prefixes
        previous = set(entries)
    # The next writer cleans up debris that killed writers left behind.
    make_home(tmp_path, memory_budget=10_000_000, history=False).memory.add(Target.MEMORY, "final")
    assert not [p for p in path.parent.iterdir() if p.name.endswith(".tmp")]
